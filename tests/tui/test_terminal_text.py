"""Escape sequences in what the model, a tool or a file name says are shown, never sent: the
terminal gets lull's own styling only (``lull.model.text.terminal_text``)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Collapsible

from lull.model.messages import ToolCall, ToolResult
from lull.ui.tui.screens.approval import ApprovalScreen
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from lull.ui.tui.widgets.command_output import CommandOutput
from lull.ui.tui.widgets.conversation import Conversation
from lull.ui.tui.widgets.notice_line import NoticeLine
from lull.ui.tui.widgets.thinking_block import ThinkingBlock
from lull.ui.tui.widgets.tool_block import ToolBlock
from lull.ui.tui.widgets.user_message import UserMessage
from tests.fakes import FakeServer, Reply, ToolUse
from tests.tui.harness import idle, make_app, ready, screen_text, send, terminal_output, until

ESCAPES = "\x1b]52;c;aGk=\x07 \x1b]0;owned\x07 \x1b[2J \x9b2J"
"""A clipboard write, a window title, a clear screen (also as the one-character C1 CSI)."""
SHOWN = "␛]52;c;aGk=␇ ␛]0;owned␇ ␛[2J ␛[2J"
OBEYED = ("\x1b]52", "\x1b]0;", "\x1b[2J", "\x9b", "\x07")
"""What a terminal would act on; lull's own output never holds these."""


def _obeyed(output: str) -> list[str]:
    return [sequence for sequence in OBEYED if sequence in output]


class Harness(App[None]):
    """A bare app holding one conversation."""

    def compose(self) -> ComposeResult:
        yield Conversation(max_items=20, id="conversation")


async def test_every_widget_shows_escapes_as_text() -> None:
    call = ToolCall("c1", "read_file", {"path": f"f{ESCAPES}.txt"})
    result = ToolResult("c1", "read_file", f"line {ESCAPES}\nsecond {ESCAPES}")
    app = Harness()
    async with app.run_test(size=(160, 60)) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.add(UserMessage(f"user {ESCAPES}"))
        await conversation.add(ThinkingBlock(f"think {ESCAPES}"))
        answer = AssistantMessage()
        await conversation.add(answer)
        await answer.write(f"say {ESCAPES}\n\nand **more** {ESCAPES}")
        await answer.finish()
        await conversation.add(AssistantMessage(f"replayed {ESCAPES}"))
        block = ToolBlock(call, result=result)
        await conversation.add(block)
        await block.add_step(f"step {ESCAPES}")
        await conversation.add(NoticeLine(f"note {ESCAPES}", "warning"))
        await conversation.add(CommandOutput(f"/cmd {ESCAPES}", (f"out {ESCAPES}",)))
        await pilot.pause()
        assert _obeyed(terminal_output(app)) == []
        shown = screen_text(app)
        for prefix in ("user", "think", "say", "more", "replayed", "note", "/cmd", "out", "└ line"):
            assert f"{prefix} {SHOWN}" in shown, prefix
        assert f"read_file  f{SHOWN}.txt" in shown


async def test_a_turn_with_escapes_in_text_tool_output_and_file_names(
    provider_env: FakeServer, workspace: Path
) -> None:
    (workspace / "name\x1b]0;owned\x07.txt").write_text("x")
    printf = "printf 'out \\033]52;c;aGk=\\007 \\033[2J'"
    provider_env.script(
        Reply(
            text=f"say {ESCAPES}",
            thinking=f"think {ESCAPES}",
            tool_calls=[
                ToolUse("run_shell_command", {"command": printf}),
                ToolUse("glob", {"pattern": "*.txt"}),
            ],
        ),
        Reply(text=f"done {ESCAPES}"),
    )
    app = make_app(workspace, "--approval-mode", "yolo")
    async with app.run_test(size=(160, 60)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await idle(pilot)
        assert [b.state for b in app.query(ToolBlock)] == ["ok", "ok"]
        assert _obeyed(terminal_output(app)) == []
        shown = screen_text(app)
        assert f"say {SHOWN}" in shown and f"done {SHOWN}" in shown
        assert "└ name␛]0;owned␇.txt" in shown
        shell = app.query(ToolBlock).first()
        shell.query_one(Collapsible).collapsed = False
        await pilot.pause()
        assert _obeyed(terminal_output(app)) == []
        assert "out ␛]52;c;aGk=␇ ␛[2J" in screen_text(app)


async def test_the_approval_dialog_shows_escapes_in_the_call_as_text(
    provider_env: FakeServer, workspace: Path
) -> None:
    edit = ToolUse("write_file", {"path": f"w{ESCAPES}.txt", "content": f"body {ESCAPES}\n"})
    shell = ToolUse("run_shell_command", {"command": f"echo {ESCAPES}"})
    provider_env.script(Reply(tool_calls=[edit]), Reply(tool_calls=[shell]), Reply(text="ok"))
    app = make_app(workspace)
    async with app.run_test(size=(160, 60)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        answered: list[ApprovalScreen] = []

        def asking() -> bool:
            return isinstance(app.screen, ApprovalScreen) and app.screen not in answered

        for shown_call in (f"+body {SHOWN}", f"$ echo {SHOWN}"):
            await until(pilot, asking, "the next approval dialog")
            await pilot.pause()
            assert _obeyed(terminal_output(app)) == []
            assert shown_call in screen_text(app)
            assert isinstance(app.screen, ApprovalScreen)
            answered.append(app.screen)
            await pilot.press("n")
        await idle(pilot)
