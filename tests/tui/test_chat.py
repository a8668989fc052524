"""Typing, streaming, tool blocks and commands in the TUI, against the fake server."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path

from textual.widgets import Collapsible

from lull.model.events import AssistantText, Event, TurnFinished
from lull.model.messages import unanswered_calls
from lull.runtime import RunOptions, Runtime, build_runtime
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from lull.ui.tui.widgets.command_output import CommandOutput
from lull.ui.tui.widgets.notice_line import NoticeLine
from lull.ui.tui.widgets.tool_block import ToolBlock
from lull.ui.tui.widgets.user_message import UserMessage
from tests.fakes import FakeServer, Reply, ToolUse
from tests.tui.harness import idle, make_app, ready, rendered, send, texts, until


async def test_a_message_streams_back_as_markdown(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(Reply(text="# Title\n\nSome **bold** words and `code`.", chunk_size=3))
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello there")
        await idle(pilot)
        assert texts(app, UserMessage) == ["hello there"]
        answer = app.query_one(AssistantMessage)
        assert answer.text == "# Title\n\nSome **bold** words and `code`."
        assert answer.finished and not answer.interrupted
        assert "claude-sonnet" in app.status.line
        assert "ctx" in app.status.line and "cache warm" in app.status.line
    assert provider_env.requests[-1]["messages"][-1]["content"][0]["text"] == "hello there"


async def test_a_burst_of_deltas_is_shown_while_it_is_read(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    shown_while_reading: list[int] = []

    async def burst() -> AsyncIterator[Event]:
        """Deltas that are all there at once (a fast server): no await between them."""
        for _ in range(200):
            answers = app.query(AssistantMessage)
            shown_while_reading.append(len(answers.first().text) if answers else 0)
            yield AssistantText("word ")
        yield TurnFinished("word " * 200, "end_turn")

    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.chat.start(burst())
        await idle(pilot)
        assert app.query_one(AssistantMessage).text == "word " * 200
    # the screen handled each delta before the next was read (not all of them after the burst)
    assert shown_while_reading[-1] >= len("word ") * 198


async def test_a_tool_call_shows_as_a_block_with_its_outcome(
    provider_env: FakeServer, workspace: Path
) -> None:
    (workspace / "notes.md").write_text("one\ntwo\n")
    provider_env.script(
        Reply(text="Looking.", tool_calls=[ToolUse("read_file", {"path": "notes.md"})]),
        Reply(text="It has two lines."),
    )
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "read notes")
        await idle(pilot)
        block = app.query_one(ToolBlock)
        assert block.call.name == "read_file" and block.summary == "notes.md"
        assert block.state == "ok"
        assert "read_file" in rendered(block.query_one(".tool-header"))
        assert [a.text for a in app.query(AssistantMessage)] == ["Looking.", "It has two lines."]


async def test_context_and_cost_commands_print_their_reports(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await idle(pilot)
        await send(pilot, "/context")
        await send(pilot, "/cost")
        await pilot.pause()
        outputs = {o.command: "\n".join(o.lines) for o in app.query(CommandOutput)}
        assert "tokens" in outputs["/context"]
        assert outputs["/cost"].strip()
        await send(pilot, "/nonsense")
        await pilot.pause()
        hint = app.query(CommandOutput).last()
        assert "unknown command /nonsense" in hint.lines[0]
        assert hint.has_class("-error")


async def test_a_message_typed_before_the_runtime_is_ready_is_queued_then_sent(
    provider_env: FakeServer, workspace: Path
) -> None:
    gate = threading.Event()

    def slow_build(options: RunOptions) -> Runtime:
        gate.wait(10)
        return build_runtime(options)

    app = make_app(workspace, build=slow_build)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "early bird")
        await pilot.pause()
        queued = app.query_one(UserMessage)
        assert queued.queued and "starting" in app.status.line
        gate.set()
        await ready(pilot)
        await idle(pilot)
        assert not queued.queued
        assert app.query_one(AssistantMessage).text == "(fake) You said: early bird"


async def test_history_recalls_inputs_of_an_earlier_session(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await send(pilot, "first question")
        await idle(pilot)
    again = make_app(workspace)
    async with again.run_test() as pilot:
        await pilot.press("up")
        assert again.prompt.text == "first question"
        await pilot.press("down")
        assert again.prompt.text == ""


async def test_esc_mid_stream_keeps_the_partial_text_and_a_valid_session(
    provider_env: FakeServer, workspace: Path
) -> None:
    # Minutes of stream: the Esc lands mid-way however slowly the machine runs.
    provider_env.script(Reply(text="word " * 4000, chunk_size=5, chunk_delay=0.02))
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "talk a lot")
        await until(pilot, lambda: len(app.query(AssistantMessage)) == 1, "the answer to start")
        answer = app.query_one(AssistantMessage)
        await until(pilot, lambda: len(answer.text) > 20, "some text")
        await pilot.press("escape")
        await idle(pilot)
        assert answer.interrupted and 0 < len(answer.text) < len("word " * 4000)
        session = app.chat.runtime.agent.session  # type: ignore[union-attr]
        assert unanswered_calls(session.transcript) == []
        await send(pilot, "still there?")
        await idle(pilot)
        assert app.query(AssistantMessage).last().text.endswith("still there?")


async def test_a_bang_line_runs_in_the_shell_shows_its_output_and_is_context(
    provider_env: FakeServer, workspace: Path
) -> None:
    (workspace / "marker.txt").write_text("x")
    app = make_app(workspace, "--approval-mode", "default")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "!ls")
        await idle(pilot)
        block = app.query_one(ToolBlock)
        assert block.call.name == "run_shell_command" and block.state == "ok"
        output = block.query_one(".tool-preview")
        assert "marker.txt" in rendered(output)
        assert not block.query_one(Collapsible).collapsed  # the user's own command: shown open
        assert provider_env.requests == []  # no model request for a ! line
        await send(pilot, "!")
        await pilot.pause()
        assert "type a command after !" in rendered(app.query(NoticeLine).last())
        await send(pilot, "what is there?")
        await idle(pilot)
    sent = str(provider_env.requests[-1]["messages"])
    assert "The user ran this command themselves" in sent and "marker.txt" in sent


async def test_a_huge_pasted_message_is_saved_for_the_model_and_said_so(
    provider_env: FakeServer, workspace: Path
) -> None:
    settings = workspace / ".lull" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"context": {"promptOffloadThreshold": 0.01}}')  # 2,000 tokens
    pasted = "".join(f"row {n}: value {n * 7}\n" for n in range(1_500))
    provider_env.script(Reply(text="I will read the file."))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, pasted)
        await idle(pilot)
        notes = [rendered(n) for n in app.query(NoticeLine)]
        assert any("saved to" in n and "read_file" in n for n in notes), notes
        assert len(provider_env.requests[-1]["messages"][0]["content"][0]["text"]) < 5_000
