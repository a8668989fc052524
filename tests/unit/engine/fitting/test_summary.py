"""Compression on the scripted provider: the 11-section summary is checked and asked for once
more with a reminder, critical content is pinned verbatim (or the compression refused), and
the files still being worked on are named for detail."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.pinning import PINNED_HEADING
from lull.context.tokens import TokenCounter
from lull.context.view import summary_text
from lull.engine.fitting.summary import Attempt, CompressionJob, Compressor
from lull.model import edits
from lull.model.edits import Summary
from lull.model.events import ContextEdited, Event, Notice
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory, Clock, run, summary_of

FILE_TEXT = "".join(f"row {i}: some content of the file\n" for i in range(60))


class Model:
    """Answers turns from ``steps`` (then "done") and summary requests from ``summaries``."""

    def __init__(self, summaries: Sequence[str]) -> None:
        self.summaries = list(summaries)
        self.steps: list[ScriptedReply] = []
        self.summary_requests: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> ScriptedReply:
        if SUMMARY_MARKER in last_user_text(request):
            self.summary_requests.append(request)
            return ScriptedReply(text=self.summaries.pop(0) if self.summaries else "")
        return self.steps.pop(0) if self.steps else ScriptedReply(text="done")


def read(path: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": path}),))


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = [f"f{i}.txt" for i in range(6)]
    for name in names:
        (workspace / name).write_text(f"{name}\n{FILE_TEXT}")
    return names


def notices(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def summaries(events: list[Event]) -> list[Summary]:
    return [e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, Summary)]


async def test_a_summary_missing_sections_is_asked_for_once_more(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    model = Model(["## Goal\nread the files", summary_of("Read the files.")])
    provider.respond = model
    agent = make_agent()
    model.steps = [read(f) for f in files]
    await run(agent, "read the files")
    events = [e async for e in agent.compact()]

    assert len(model.summary_requests) == 2
    assert "REMINDER" not in last_user_text(model.summary_requests[0])
    reminder = last_user_text(model.summary_requests[1])
    assert "REMINDER: your previous answer was rejected because the summary lacks the" in reminder
    assert "User goal" in reminder
    assert any(n.endswith("asking once more with a reminder") for n in notices(events))
    assert summaries(events) and "Read the files." in summaries(events)[0].text


async def test_a_second_summary_without_the_sections_is_kept_marked_unstructured(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    prose = "## Goal\nstill no sections, " + "the files were read and nothing failed " * 4
    provider.respond = model = Model(["## Goal\nx", prose])
    agent = make_agent()
    model.steps = [read(f) for f in files]
    await run(agent, "read the files")
    events = [e async for e in agent.compact()]
    assert len(model.summary_requests) == 2
    (summary,) = summaries(events)
    assert (
        summary.text.startswith("(An unstructured summary") and "still no sections" in summary.text
    )
    edited = [e for e in events if isinstance(e, ContextEdited)]
    assert "an unstructured summary" in edited[0].description


@pytest.mark.parametrize("second", ["", "## Goal\ndone"])
async def test_a_second_empty_or_tiny_summary_gives_up_and_changes_nothing(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str], second: str
) -> None:
    provider.respond = model = Model(["## Goal\nx", second])
    agent = make_agent()
    model.steps = [read(f) for f in files]
    await run(agent, "read the files")
    view = agent.session.view()
    events = [e async for e in agent.compact()]
    assert len(model.summary_requests) == 2 and not summaries(events)
    assert any(n.startswith("compression failed: ") for n in notices(events))
    assert agent.session.view() == view


async def test_what_the_user_wrote_open_errors_and_notes_are_pinned_verbatim(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    provider.respond = model = Model([summary_of("Read the files.")])
    agent = make_agent()
    model.steps = [
        ScriptedReply(
            tool_calls=(ScriptedCall("note", {"key": "style", "text": "tabs, not spaces"}),)
        ),
        read("missing.txt"),  # an error that is never fixed
        *[read(f) for f in files],
    ]
    await run(agent, "Always use tabs.\nNever touch setup.py.")
    model.steps = [read(f) for f in files]
    await run(agent, "now read them again")
    events = [e async for e in agent.compact()]

    [summary] = summaries(events)
    assert summary.pinned.startswith(PINNED_HEADING)
    assert "> 1. Always use tabs.\n> Never touch setup.py." in summary.pinned
    assert "read_file (read:missing.txt" in summary.pinned and "not found" in summary.pinned
    assert "### Session notes\n- style: tabs, not spaces" in summary.pinned
    first = agent.session.view()[0].text
    assert summary.text in first and summary.pinned in first  # restated for the model


async def test_compression_is_refused_when_the_critical_content_leaves_nothing_to_gain(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.respond = model = Model([summary_of("x")])
    agent = make_agent()
    for n in range(4):
        await run(agent, f"instruction {n}: " + "keep this exactly " * 60)
    events = [e async for e in agent.compact()]
    assert not model.summary_requests  # refused before any request
    assert any("must stay verbatim" in n and "is not smaller" in n for n in notices(events))
    assert not summaries(events)


async def test_files_still_being_worked_on_are_named_for_detail(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    provider.respond = model = Model([summary_of("x")])
    agent = make_agent()
    edit = ScriptedCall("edit", {"path": "f0.txt", "old_string": "row 1:", "new_string": "ROW 1:"})
    model.steps = [
        read("f0.txt"),
        ScriptedReply(tool_calls=(edit,)),
        read("f0.txt"),
        read("f1.txt"),
    ]
    await run(agent, "change f0")
    await run(agent, "and now?")
    await run(agent, "and now?")
    [e async for e in agent.compact()]
    assert "files still being worked on: f0.txt." in last_user_text(model.summary_requests[0])


def _summary_shown_in(tokens: int, counter: TokenCounter) -> str:
    """A complete summary that, as the view shows it (recall line included), has about
    ``tokens`` (give or take the token or two a recall id's digits may vary by)."""

    def shown(padding: int) -> int:
        text = summary_text(Summary("", summary_of("word " * padding)))
        return counter.message(Message("user", (Text(text),), origin="summary"))

    low, high = 0, tokens
    while low < high:  # the least padding that shows ``tokens``
        middle = (low + high) // 2
        low, high = (middle + 1, high) if shown(middle) < tokens else (low, middle)
    return summary_of("word " * low)


@pytest.mark.parametrize("margin", [-2, 2], ids=["smaller", "larger_with_its_recall_line"])
async def test_a_summary_is_judged_as_the_view_shows_it_with_its_recall_line(
    margin: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the compression property test: a summary smaller than what it replaces only
    without the recall line under it (or without its message's own tokens) was accepted,
    and the context grew."""
    monkeypatch.setattr(edits, "new_id", lambda prefix: f"{prefix}_0123456789abcdef")
    counter = TokenCounter()  # the recall line's id, and so its tokens, are fixed above
    view = [
        Message("user", (Text("read a"),)),
        Message("assistant", (ToolCall("c1", "read_file", {"path": "a"}),), origin="model"),
        Message("user", (ToolResult("c1", "read_file", FILE_TEXT),), origin="tool"),
        Message("assistant", (Text("read it"),), origin="model"),
        Message("user", (Text("go on"),)),
    ]
    compressor = Compressor(counter, Clock())
    plan = compressor.plan(view, keep_tokens=5, transcript_ids={m.id for m in view})
    assert plan is not None and plan.split == 4
    summary = _summary_shown_in(plan.head_tokens + margin, counter)
    job = CompressionJob(
        view=view,
        base=ModelRequest(system="You are a test.", messages=view),
        provider=ScriptedProvider(respond=lambda request: ScriptedReply(text=summary)),
        input_limit=100_000,
        summary_tokens=10_000,
        estimate=counter.messages,
    )
    attempts = [step async for step in compressor.run(job, plan) if isinstance(step, Attempt)]
    if margin < 0:
        assert [a.status for a in attempts] == ["ok"]
        assert attempts[0].after < attempts[0].before
    else:
        assert [a.status for a in attempts] == ["inflated", "inflated"]
        assert attempts[-1].edit is None
