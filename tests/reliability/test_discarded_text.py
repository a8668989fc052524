"""Text of an attempt the engine discarded (a cut stream) is never the answer: ``-p``
prints only the kept answer, JSON and stream-JSON mark each discarded attempt, and the TUI and
line mode mark the discarded partial text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from lull.model.events import AssistantText, AttemptDiscarded, TurnFinished
from lull.ui.line.render import DISCARDED, EventPrinter
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from tests.fakes import FakeServer, Reply
from tests.reliability.helpers import (
    print_mode,
)
from tests.support import build_agent, run
from tests.tui.harness import idle, make_app, ready, send

CUT_TEXT = "partial words " * 20  # streamed in 8-character deltas, then cut


def _cut_twice(fake: FakeServer) -> None:
    fake.cut_next_stream(after_events=6)  # some text deltas get through each time
    fake.cut_next_stream(after_events=6)
    fake.script(Reply(text=CUT_TEXT, chunk_size=8))


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_the_engine_says_which_streamed_text_it_discarded(
    vendor: str, fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    fake.cut_next_stream(after_events=6)
    fake.script(Reply(text="the whole answer, second try", chunk_size=4))
    events = await run(build_agent(fake, workspace, tmp_path, vendor), "hi")
    [discard] = [e for e in events if isinstance(e, AttemptDiscarded)]
    before = events[: events.index(discard)]
    streamed = "".join(e.text for e in before if isinstance(e, AssistantText))
    assert streamed and discard.text == streamed
    assert "the whole answer, second try".startswith(streamed)
    assert isinstance(events[-1], TurnFinished)
    assert events[-1].text == "the whole answer, second try"


def test_after_two_cuts_p_prints_no_partial_answer(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_twice(anthropic_env)
    code, out, err = print_mode(capsys, workspace, "text")
    assert code == 1
    assert "partial" not in out and out == ""
    assert "lull: error:" in err


def test_after_two_cuts_the_json_result_holds_no_discarded_text(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_twice(anthropic_env)
    code, out, _ = print_mode(capsys, workspace, "json")
    payload = json.loads(out)
    assert code == 1 and payload["is_error"] is True
    assert (payload["subtype"], payload["lull_subtype"]) == ("error_during_execution", "error")
    assert payload["result"] == ""


def test_stream_json_marks_each_discarded_attempt(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cut_twice(anthropic_env)
    _, out, _ = print_mode(capsys, workspace, "stream-json")
    events = [json.loads(line) for line in out.splitlines()]
    discarded = [e for e in events if e["type"] == "lull" and e["subtype"] == "discarded"]
    assert len(discarded) == 2
    assert all(e["text"] and CUT_TEXT.startswith(e["text"]) for e in discarded)
    assert not [e for e in events if e["type"] == "assistant"]  # never as the model's message
    assert events[-1]["type"] == "result" and events[-1]["result"] == ""


def test_one_cut_then_success_returns_the_answer_once(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.cut_next_stream(after_events=6)
    anthropic_env.script(Reply(text="the kept answer", chunk_size=4))
    code, out, _ = print_mode(capsys, workspace, "json")
    assert code == 0 and json.loads(out)["result"] == "the kept answer"
    anthropic_env.cut_next_stream(after_events=6)
    anthropic_env.script(Reply(text="the kept answer", chunk_size=4))
    code, out, _ = print_mode(capsys, workspace, "text")
    assert code == 0 and out == "the kept answer\n"


async def test_the_tui_marks_a_discarded_partial_answer(
    anthropic_env: FakeServer, workspace: Path
) -> None:
    anthropic_env.cut_next_stream(after_events=6)
    anthropic_env.script(Reply(text="the kept answer", chunk_size=4))
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await idle(pilot)
        cut, kept = app.query(AssistantMessage)
        assert cut.discarded and "discarded" in str(cut.query("Static").last().render())
        assert not kept.discarded and kept.text == "the kept answer"


def test_line_mode_marks_a_discarded_partial_answer() -> None:
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=100, force_terminal=False, color_system=None))
    printer.render(AssistantText("partial words"))
    printer.render(AttemptDiscarded("partial words", "the stream was cut"))
    printer.render(AssistantText("the kept answer"))
    printer.render(TurnFinished("the kept answer", "end_turn"))
    lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    assert lines == ["partial words", f"{DISCARDED} (the stream was cut)", "the kept answer"]
