"""Engine events as scrollback lines: streamed answers, tool blocks, notices, errors.

While a request has not sent its first token, a transient line says that lull is waiting
and for how long (:meth:`EventPrinter.tick` updates it); a partial answer the engine
discarded (a cut stream) is marked as such, since it is already in the scrollback.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, assert_never

from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    AttemptFinished,
    AttemptStarted,
    ContextEdited,
    Event,
    GuardrailTriggered,
    Notice,
    PromptOffloaded,
    RequestFinished,
    SubagentUpdate,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from lull.model.provider import Usage
from lull.model.text import terminal_text
from lull.model.todos import call_todos
from lull.ui.line.stream import StreamView
from lull.ui.shared.stop_notes import stop_note, with_repairs
from lull.ui.shared.todos import todo_lines
from lull.ui.shared.user_shell import user_run_output
from lull.ui.shared.waiting import SHOW_AFTER_SECONDS, FirstTokenWait

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

DIFF_LINES = 30
RESULT_WIDTH = 100
DISCARDED = "✗ discarded: the partial answer above was not kept"
WAITING = "· waiting for the model · {seconds}s (no token yet)"


class EventPrinter:
    """Prints engine events to a rich console, one stream at a time."""

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self._clock = clock
        self._stream: StreamView | None = None
        self._streaming: type | None = None
        self.turn_usage = Usage()
        self.turn_requests = 0
        self.context_tokens: int | None = None
        self.wait = FirstTokenWait(clock)
        self._waiting: Live | None = None
        self._wait_said = False  # a console that is not a terminal is told once per wait

    # --- plain lines ------------------------------------------------------------------

    def line(self, text: str, style: str = "") -> None:
        """One line of literal text (no markup is interpreted, control characters are shown:
        :func:`terminal_text`)."""
        from rich.text import Text

        self.end_stream()
        self.console.print(Text(terminal_text(text), style=style), soft_wrap=True)

    # --- waiting for the first token ---------------------------------------------------

    def tick(self) -> None:
        """Show or update the waiting line while no token has come (call it every second
        or so while a turn runs)."""
        if not self.wait.waiting or self._stream is not None:
            return
        seconds = self.wait.elapsed()
        if seconds < SHOW_AFTER_SECONDS:
            return
        from rich.text import Text

        text = Text(WAITING.format(seconds=int(seconds)), style="dim")
        if not self.console.is_terminal:
            if not self._wait_said:
                self._wait_said = True
                self.console.print(text, soft_wrap=True)
            return
        if self._waiting is None:
            from rich.live import Live

            self._waiting = Live(
                text,
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._waiting.start()
        self._waiting.update(text, refresh=True)

    def stop_waiting(self) -> None:
        """The stream of events ended (or was interrupted): no more waiting line."""
        self.wait.reset()
        self._clear_waiting()

    def _clear_waiting(self) -> None:
        if self._waiting is not None:
            live, self._waiting = self._waiting, None
            live.update("", refresh=True)
            live.stop()
        if not self.wait.waiting:
            self._wait_said = False

    def note(self, text: str) -> None:
        """A one-line dim notice (context edits, engine notices, hints)."""
        self.line(f"· {text}", "dim")

    def error(self, text: str) -> None:
        """A one-line error."""
        self.line(f"error: {text}", "bold red")

    def lines(self, lines: Iterable[str], *, error: bool = False) -> None:
        """Lines a command produced (a hint about bad input is shown in yellow)."""
        for text in lines:
            self.line(text, "yellow" if error else "")

    # --- events -----------------------------------------------------------------------

    def render(self, event: Event) -> None:
        """Print one engine event."""
        self.wait.observe(event)
        self._clear_waiting()
        match event:
            case AssistantText(text):
                self._feed(AssistantText, text, markdown=True, style="")
            case AssistantThinking(text):
                self._feed(AssistantThinking, text, markdown=False, style="dim italic")
            case AttemptDiscarded(_, reason):
                self.end_stream()
                self.line(f"{DISCARDED} ({reason})", "yellow")
            case TurnStarted():
                self.turn_usage, self.turn_requests = Usage(), 0
            case RequestFinished():
                self.end_stream()
                self.turn_usage = self.turn_usage + event.usage
                self.turn_requests += 1
                self.context_tokens = event.context_tokens
            case ToolStarted(call, summary, repairs):
                self.line(f"⏺ {call.name}({with_repairs(summary, repairs)})", "bold")
            case ToolFinished():
                self._tool_finished(event)
            case SubagentUpdate():
                self._subagent(event)
            case ContextEdited() | Notice() | GuardrailTriggered() | TurnFailed():
                self._notice(event)
            case PromptOffloaded(text=text):
                self.note(f"warning: {text}")
            case AttemptStarted() | AttemptFinished():
                pass  # attempts belong to -p
            case TurnFinished(_, stop_reason, detail):
                self.end_stream()
                if note := stop_note(stop_reason, detail):
                    self.note(note)
            case _:
                assert_never(event)

    def _notice(self, event: ContextEdited | Notice | GuardrailTriggered | TurnFailed) -> None:
        """One line for an event that tells the user something."""
        match event:
            case ContextEdited(_, description):
                self.note(description)
            case Notice(level, text):
                self.note(text if level == "info" else f"{level}: {text}")
            case GuardrailTriggered(_, text):
                self.note(f"guardrail: {text}")
            case TurnFailed(message):
                self.error(message)
            case _:
                assert_never(event)

    def end_stream(self) -> None:
        """Finish the message being streamed (print its tail, drop the live region)."""
        self._clear_waiting()
        if self._stream is not None:
            stream, self._stream, self._streaming = self._stream, None, None
            stream.finish()

    def interrupted(self) -> None:
        """Say that the turn was interrupted and the session is still usable (the engine says
        itself when it gave unfinished tool calls their 'cancelled' result)."""
        self.end_stream()
        self.note("interrupted; session saved")

    def _feed(self, kind: type, text: str, *, markdown: bool, style: str) -> None:
        stream = self._stream
        if stream is None or self._streaming is not kind:
            self.end_stream()
            stream = StreamView(self.console, markdown=markdown, style=style, clock=self._clock)
            self._stream, self._streaming = stream, kind
        stream.feed(text)

    def _tool_finished(self, event: ToolFinished) -> None:
        result = event.result
        if event.display and not result.is_error:
            self._diff(event.display)
            return
        first = next((s for s in result.content.strip().splitlines() if s.strip()), "")
        if len(first) > RESULT_WIDTH:
            first = first[: RESULT_WIDTH - 1] + "…"
        if result.is_error:
            self.line(f"  ✗ {first}", "red")
        else:
            self.line(f"  ✓ {first}", "dim")
        for row in user_run_output(event.call, result) or ():
            self.line(f"    {row}")
        todos = None if result.is_error else call_todos(event.call)
        for row in todo_lines(todos) if todos is not None else ():
            self.line(f"    {row}")

    def _subagent(self, event: SubagentUpdate) -> None:
        """A sub-agent's steps, indented under its task call (its requests are not shown)."""
        match event.step:
            case "started":
                self.line(f"  ↳ sub-agent {event.agent}: {event.text}", "dim")
            case "tool":
                self.line(f"    ↳ {event.text}", "dim")
            case "finished":
                self.line(f"  ↳ sub-agent {event.agent} {event.text}", "dim")
            case "request":
                pass
            case _:
                assert_never(event.step)

    def _diff(self, diff: str) -> None:
        rows = diff.splitlines()
        for row in rows[:DIFF_LINES]:
            style = "dim"
            if row.startswith("+") and not row.startswith("+++"):
                style = "green"
            elif row.startswith("-") and not row.startswith("---"):
                style = "red"
            self.line(f"  {row}", style)
        if len(rows) > DIFF_LINES:
            self.note(f"  … {len(rows) - DIFF_LINES} more diff lines")
