"""The y/n/a approval question: answers, reasons, end of input and Ctrl+C."""

from __future__ import annotations

import asyncio
import io

import pytest
from rich.console import Console

from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.ui.line.approve import TerminalApprover, parse_answer
from lull.ui.line.render import EventPrinter

CALL = ToolCall("c1", "run_shell_command", {"command": "rm -rf build"})


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("y", Approval("allow")),
        (" YES ", Approval("allow")),
        ("a", Approval("allow_always")),
        ("always", Approval("allow_always")),
        ("w", Approval("allow_always", remember="workspace")),
        ("e", Approval("allow_always", remember="user")),
        ("everywhere", Approval("allow_always", remember="user")),
        ("", Approval("deny")),
        ("n", Approval("deny")),
        ("no, use make clean", Approval("deny", "use make clean")),
        ("n: not now", Approval("deny", "not now")),
        ("nope, never", Approval("deny", "nope, never")),
        ("keep the build dir", Approval("deny", "keep the build dir")),
    ],
)
def test_answers(answer: str, expected: Approval) -> None:
    assert parse_answer(answer) == expected


def _approver(
    answer: str | BaseException, out: io.StringIO | None = None
) -> tuple[TerminalApprover, list[str]]:
    asked: list[str] = []

    async def ask(question: str) -> str:
        asked.append(question)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    console = Console(file=out or io.StringIO(), color_system=None)
    return TerminalApprover(ask, EventPrinter(console)), asked


async def test_the_question_names_the_tool_and_its_argument() -> None:
    approver, asked = _approver("y")
    assert await approver.ask(CALL, "rm -rf build") == Approval("allow")
    assert asked[0].startswith("Allow run_shell_command(rm -rf build)? [y]es / [n]o")


async def test_end_of_input_denies() -> None:
    approver, _ = _approver(EOFError())
    assert await approver.ask(CALL, "rm -rf build") == Approval("deny")


async def test_ctrl_c_at_the_question_cancels_the_turn() -> None:
    approver, _ = _approver(KeyboardInterrupt())
    with pytest.raises(asyncio.CancelledError):
        await approver.ask(CALL, "rm -rf build")


async def test_the_question_says_what_always_would_allow() -> None:
    out = io.StringIO()
    approver, asked = _approver("w", out)
    approval = await approver.ask(CALL, "rm -rf build", ("run_shell_command(rm *)",))
    assert approval == Approval("allow_always", remember="workspace")
    assert "always: allow run_shell_command(rm *)" in out.getvalue()
    assert "[a] this session, [w] this workspace, [e] everywhere" in asked[0]


async def test_the_question_and_the_legend_show_escape_sequences_as_text() -> None:
    out = io.StringIO()
    approver, asked = _approver("n", out)
    command = "echo \x1b]52;c;aGk=\x07 \x1b[2J"
    await approver.ask(CALL, command, (f"run_shell_command({command})",))
    for shown in (asked[0], out.getvalue()):
        assert "\x1b" not in shown and "\x07" not in shown
        assert "echo ␛]52;c;aGk=␇ ␛[2J" in shown
