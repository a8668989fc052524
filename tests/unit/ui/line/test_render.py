"""Engine events as scrollback lines (no terminal needed)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from lull.model.edits import ClearToolResults
from lull.model.events import (
    AssistantText,
    AssistantThinking,
    ContextEdited,
    Notice,
    PromptOffloaded,
    RequestFinished,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from lull.model.messages import ToolCall, ToolResult
from lull.model.provider import Usage
from lull.ui.line.render import EventPrinter

CALL = ToolCall("call_1", "read_file", {"path": "a.txt"})


def _printer() -> tuple[EventPrinter, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False, color_system=None)
    return EventPrinter(console), out


def _lines(out: io.StringIO) -> list[str]:
    return [line.rstrip() for line in out.getvalue().splitlines() if line.strip()]


def test_thinking_then_a_streamed_markdown_answer() -> None:
    printer, out = _printer()
    printer.render(TurnStarted("hi"))
    for piece in ("I should ", "greet.\n", "Done"):
        printer.render(AssistantThinking(piece))
    for piece in ("Hello **wor", "ld**!\n\n- a", "\n- b"):
        printer.render(AssistantText(piece))
    printer.render(TurnFinished("Hello world!", "end_turn"))
    assert _lines(out) == ["I should greet.", "Done", "Hello world!", " • a", " • b"]


def test_tool_calls_show_name_argument_and_outcome() -> None:
    printer, out = _printer()
    printer.render(ToolStarted(CALL, "a.txt"))
    printer.render(ToolFinished(CALL, ToolResult("call_1", "read_file", "line one\nline two")))
    printer.render(ToolFinished(CALL, ToolResult("call_1", "read_file", "no such file", True)))
    assert _lines(out) == ["⏺ read_file(a.txt)", "  ✓ line one", "  ✗ no such file"]


def test_an_edit_shows_its_diff() -> None:
    printer, out = _printer()
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a - b\n+a + b"
    printer.render(ToolFinished(CALL, ToolResult("call_1", "edit", "Edited x.py"), diff))
    assert _lines(out) == ["  --- a/x.py", "  +++ b/x.py", "  @@ -1 +1 @@", "  -a - b", "  +a + b"]


def test_notices_and_context_edits_are_one_dim_line_each() -> None:
    printer, out = _printer()
    edit = ClearToolResults(("c1",), tokens_saved=800)
    printer.render(ContextEdited(edit, "idle cleanup: cleared 1 tool result (~800 tokens)"))
    printer.render(Notice("warning", "stream cut; retrying"))
    printer.render(Notice("info", "compacted"))
    printer.render(PromptOffloaded("/p.txt", 9000, 2000, "the message is too large: saved"))
    assert _lines(out) == [
        "· idle cleanup: cleared 1 tool result (~800 tokens)",
        "· warning: stream cut; retrying",
        "· compacted",
        "· warning: the message is too large: saved",
    ]


def test_a_failure_and_a_truncated_answer_are_explained() -> None:
    printer, out = _printer()
    printer.render(AssistantText("partial"))
    printer.render(TurnFinished("partial", "max_tokens"))
    printer.render(TurnFailed("rate limited: retry in 20 s", "rate_limit"))
    lines = _lines(out)
    assert lines[0] == "partial"
    assert "output token limit" in lines[1]
    assert lines[2] == "error: rate limited: retry in 20 s"


def test_an_interrupt_keeps_the_partial_text_and_says_so() -> None:
    printer, out = _printer()
    printer.render(AssistantText("half an ans"))
    printer.interrupted()
    lines = _lines(out)
    assert lines[0] == "half an ans" and lines[1].startswith("· interrupted")
    assert "tool call" not in lines[1]  # a plain text answer had none to cancel


def test_usage_of_the_turn_is_summed() -> None:
    printer, _ = _printer()
    printer.render(TurnStarted("go"))
    printer.render(RequestFinished(Usage(input=10, output=5), 1, 100))
    printer.render(RequestFinished(Usage(cache_read=90, output=7), 2, 120))
    assert printer.turn_requests == 2
    assert printer.turn_usage == Usage(input=10, output=12, cache_read=90)
    assert printer.context_tokens == 120


def test_markup_in_text_is_printed_literally() -> None:
    printer, out = _printer()
    printer.line("[bold]not markup[/bold]")
    printer.lines(["[red]hint[/red]"], error=True)
    assert _lines(out) == ["[bold]not markup[/bold]", "[red]hint[/red]"]


ESCAPES = "\x1b]52;c;aGk=\x07 \x1b]0;owned\x07 \x1b[2J \x9b2J"
"""A clipboard write, a window title, a clear screen (also as the one-character C1 CSI)."""
SHOWN = "␛]52;c;aGk=␇ ␛]0;owned␇ ␛[2J ␛[2J"


def _hostile_turn(printer: EventPrinter) -> None:
    """A turn whose model text, reasoning, file name, tool output and notice hold escapes."""
    call = ToolCall("call_9", "read_file", {"path": f"f{ESCAPES}.txt"})
    printer.render(TurnStarted("hi"))
    printer.render(AssistantThinking(f"think {ESCAPES}\n"))
    printer.render(AssistantText(f"say {ESCAPES}\n\nand *more* {ESCAPES}"))
    printer.render(ToolStarted(call, f"f{ESCAPES}.txt"))
    printer.render(ToolFinished(call, ToolResult("call_9", "read_file", f"out {ESCAPES}")))
    printer.render(Notice("warning", f"note {ESCAPES}"))
    printer.render(TurnFailed(f"failed {ESCAPES}", "api"))


def test_escape_sequences_from_the_model_and_tools_are_shown_not_sent() -> None:
    printer, out = _printer()
    _hostile_turn(printer)
    text = out.getvalue()
    assert not [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
    assert len([line for line in _lines(out) if SHOWN in line]) == 7


def test_a_terminal_gets_lulls_own_styling_and_no_sequence_from_the_text() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=True, color_system="truecolor")
    printer = EventPrinter(console)
    _hostile_turn(printer)
    text = out.getvalue()
    assert "\x1b[1m" in text  # lull's bold is still sent
    for sequence in ("\x1b]52", "\x1b]0;", "\x1b[2J", "\x9b", "\x07"):
        assert sequence not in text
    assert SHOWN in text


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_a_terminal_sees_a_waiting_line_until_the_first_token() -> None:
    out = io.StringIO()
    clock = Clock()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    printer = EventPrinter(console, clock=clock)
    printer.render(TurnStarted("hi"))
    clock.now += 0.5
    printer.tick()
    assert "waiting" not in out.getvalue()  # a short wait is not worth a line
    clock.now += 2.6
    printer.tick()
    assert "waiting for the model · 3s (no token yet)" in out.getvalue()
    clock.now += 1
    printer.tick()
    assert "waiting for the model · 4s" in out.getvalue()
    printer.render(AssistantText("here it is"))
    printer.render(TurnFinished("here it is", "end_turn"))
    assert not printer.wait.waiting and printer.wait.last_seconds == pytest.approx(4.1)
    assert out.getvalue().rstrip().endswith("here it is")


def test_a_log_is_told_once_per_wait() -> None:
    printer, out = _printer()
    clock = Clock()
    printer.wait.clock = clock
    printer.render(TurnStarted("hi"))
    for _ in range(5):
        clock.now += 1
        printer.tick()
    printer.render(AssistantText("answer"))
    printer.render(TurnFinished("answer", "end_turn"))
    assert _lines(out) == ["· waiting for the model · 1s (no token yet)", "answer"]


def test_guardrails_are_notes_and_repairs_show_with_the_call() -> None:
    from lull.model.events import AttemptDiscarded, GuardrailTriggered, ToolStarted, TurnFinished
    from lull.model.messages import ToolCall

    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=120, force_terminal=False, color_system=None))
    printer.render(AssistantText("As an AI"))
    printer.render(AttemptDiscarded("As an AI", "rolled back: a refusal"))
    printer.render(GuardrailTriggered("rollback", "rolled back the model's reply (a refusal)"))
    call = ToolCall("c1", "read_file", {"file_path": "a.txt"})
    printer.render(ToolStarted(call, "a.txt", ("file_path -> path",)))
    printer.render(TurnFinished("", "doom_loop", "stopped a loop: read_file(a.txt) 3 times"))
    lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    assert lines[1] == "✗ discarded: the partial answer above was not kept (rolled back: a refusal)"
    assert lines[2] == "· guardrail: rolled back the model's reply (a refusal)"
    assert lines[3] == "⏺ read_file(a.txt  [repaired: file_path -> path])"
    assert lines[4] == "· stopped a loop: read_file(a.txt) 3 times"


def test_a_sub_agent_is_indented_under_its_task_call() -> None:
    from lull.model.events import SubagentUpdate

    printer, out = _printer()
    task = ToolCall("t1", "task", {"description": "find", "prompt": "find the secret"})
    printer.render(ToolStarted(task, "find"))
    printer.render(SubagentUpdate("t1", "general", "started", "find", "child-1"))
    printer.render(SubagentUpdate("t1", "general", "request", "", "child-1", Usage(input=5)))
    printer.render(SubagentUpdate("t1", "general", "tool", "read_file(notes.txt)", "child-1"))
    printer.render(SubagentUpdate("t1", "general", "finished", "finished", "child-1"))
    printer.render(ToolFinished(task, ToolResult("t1", "task", "the secret is 42")))
    assert _lines(out) == [
        "⏺ task(find)",
        "  ↳ sub-agent general: find",
        "    ↳ read_file(notes.txt)",
        "  ↳ sub-agent general finished",
        "  ✓ the secret is 42",
    ]


def test_a_todo_list_shows_under_its_call() -> None:
    printer, out = _printer()
    todos = [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run tests", "status": "pending", "activeForm": "Running tests"},
    ]
    call = ToolCall("t1", "todo_write", {"todos": todos})
    printer.render(ToolStarted(call, "3 items"))
    result = ToolResult("t1", "todo_write", "to-do list updated (1 done, 1 in progress, 1 pending)")
    printer.render(ToolFinished(call, result))
    assert _lines(out)[-3:] == ["    ✓ Read the code", "    ▸ Fixing the bug", "    ○ Run tests"]
