"""One tool call: name and key argument, a spinner with elapsed time, then the outcome.

The result preview is collapsible; an ``edit`` or ``write_file`` shows its
change as a coloured diff instead, a ``todo_write`` the to-do list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Collapsible, Static

from lull.model.messages import ToolCall, ToolResult
from lull.model.text import terminal_text
from lull.model.todos import call_todos
from lull.ui.shared.user_shell import user_run_output
from lull.ui.tui.widgets.diff_view import DiffView, diff_stats, write_as_diff
from lull.ui.tui.widgets.todo_list import TodoList

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_SECONDS = 0.1
PREVIEW_LINES = 40
SUMMARY_WIDTH = 80
DIFF_TOOLS = frozenset({"edit", "write_file"})


def key_argument(arguments: Mapping[str, Any]) -> str:
    """The argument that says what a call is about (path, command, pattern or url)."""
    for key in ("path", "command", "pattern", "url", "query"):
        if key in arguments:
            return str(arguments[key])
    return ""


def _one_line(text: str, width: int = SUMMARY_WIDTH) -> str:
    line = " ".join(terminal_text(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return _one_line(line)
    return ""


class ToolBlock(Vertical):
    """A compact block for one tool call, updated from ToolStarted / ToolFinished."""

    DEFAULT_CSS = """
    ToolBlock {
        height: auto;
        margin: 1 0 0 0;
    }
    ToolBlock > .tool-header { padding: 0 1; height: 1; }
    ToolBlock.-running > .tool-header { color: $accent; }
    ToolBlock.-ok > .tool-header { color: $success; }
    ToolBlock.-error > .tool-header { color: $error; }
    ToolBlock.-cancelled > .tool-header { color: $warning; }
    ToolBlock > .tool-outcome { padding: 0 1 0 4; color: $text-muted; }
    ToolBlock > Collapsible {
        margin: 0 0 0 2;
        padding: 0;
        border-top: none;
        background: transparent;
    }
    ToolBlock Static.tool-preview { color: $text-muted; }
    """

    def __init__(
        self,
        call: ToolCall,
        summary: str | None = None,
        *,
        result: ToolResult | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(classes="-pending")
        self.call = call
        self.summary = summary if summary is not None else key_argument(call.arguments)
        self.state = "pending"
        self.result: ToolResult | None = None
        self._initial = result
        self._clock = clock
        self._started: float | None = None
        self._elapsed: float | None = None
        self._frame = 0
        self._timer: Timer | None = None
        self._header = Static(markup=False, classes="tool-header")
        self._steps: list[str] = []
        self._step_view: Static | None = None
        self._step_box: Collapsible | None = None

    def compose(self) -> ComposeResult:
        """The header line, and the outcome if the result is already known (a replay)."""
        yield self._header
        if self._initial is not None:
            yield from self._settle(self._initial, None)

    def on_mount(self) -> None:
        """Draw the header."""
        self._draw()

    def _set_state(self, state: str) -> None:
        self.remove_class(f"-{self.state}")
        self.state = state
        self.add_class(f"-{state}")

    def _draw(self) -> None:
        glyph = {
            "pending": "○",
            "running": SPINNER[self._frame % len(SPINNER)],
            "ok": "✓",
            "error": "✗",
            "cancelled": "⏸",
        }[self.state]
        line = Text(f"{glyph} ", no_wrap=True, overflow="ellipsis")
        line.append(self.call.name, style="bold")
        if self.summary:
            line.append(f"  {_one_line(self.summary)}")
        elapsed = self.elapsed
        if elapsed is not None:
            line.append(f"  {elapsed:.1f}s", style="dim")
        if self.state == "cancelled":
            line.append("  cancelled", style="italic")
        self._header.update(line, layout=False)  # always one line: no layout pass

    @property
    def elapsed(self) -> float | None:
        """Seconds the call ran (so far, while running); None before it started."""
        if self._elapsed is not None:
            return self._elapsed
        if self._started is None:
            return None
        return self._clock() - self._started

    def start(self, summary: str | None = None) -> None:
        """The call started running: spin and count seconds."""
        if summary:
            self.summary = summary
        self._started = self._clock()
        self._set_state("running")
        self._timer = self.set_interval(TICK_SECONDS, self._tick)
        self._draw()

    def _tick(self) -> None:
        self._frame += 1
        self._draw()

    def _stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._started is not None and self._elapsed is None:
            self._elapsed = self._clock() - self._started

    async def finish(self, result: ToolResult, display: str | None = None) -> None:
        """The call has its result: show the outcome and a preview (or the diff)."""
        self._stop_clock()
        await self.mount_all(self._settle(result, display))

    def _settle(self, result: ToolResult, display: str | None) -> list[Static | Collapsible]:
        """Record ``result`` and build the widgets that show it."""
        self.result = result
        self._set_state("error" if result.is_error else "ok")
        self._draw()
        todos = None if result.is_error else call_todos(self.call)
        if todos is not None:  # a todo_write: the list itself
            return [self._outcome(_first_line(result.content)), TodoList(todos)]
        diff = self._diff(result, display)
        if diff is not None:
            added, removed = diff_stats(diff)
            return [self._outcome(f"+{added} -{removed} lines"), DiffView(diff)]
        widgets: list[Static | Collapsible] = [self._outcome(_first_line(result.content))]
        lines = result.content.splitlines()
        shown = user_run_output(self.call, result)  # a ! command: its output open, in full
        if len(lines) > 1:
            preview = "\n".join(lines[:PREVIEW_LINES])
            if len(lines) > PREVIEW_LINES:
                preview += f"\n… {len(lines) - PREVIEW_LINES} more lines"
            if shown is not None:
                preview = "\n".join([lines[0], *shown])
            body = Static(Text(terminal_text(preview)), markup=False, classes="tool-preview")
            title = f"output ({len(lines)} lines)"
            widgets.append(Collapsible(body, title=title, collapsed=shown is None))
        return widgets

    def _outcome(self, text: str) -> Static:
        return Static(Text(f"└ {text}" if text else "└ (no output)"), classes="tool-outcome")

    def _diff(self, result: ToolResult, display: str | None) -> str | None:
        if result.is_error or self.call.name not in DIFF_TOOLS:
            return None
        if display:
            return display
        content = self.call.arguments.get("content")
        if self.call.name == "write_file" and isinstance(content, str):
            return write_as_diff(self.summary or "file", content)
        return None

    async def add_step(self, text: str) -> None:
        """A sub-agent's step inside this (task) call: listed in a collapsed block."""
        self._steps.append(_one_line(text))
        body = "\n".join(self._steps)
        title = f"sub-agent ({len(self._steps)} steps)"
        if self._step_view is None:
            self._step_view = Static(Text(body), markup=False, classes="tool-preview")
            self._step_box = Collapsible(self._step_view, title=title, collapsed=True)
            await self.mount(self._step_box)
        else:
            self._step_view.update(Text(body))
            if self._step_box is not None:
                self._step_box.title = title

    def cancel(self) -> None:
        """The turn was interrupted before this call finished."""
        if self.state in ("pending", "running"):
            self._stop_clock()
            self._set_state("cancelled")
            self._draw()
