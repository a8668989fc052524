"""Reading input: prompt-toolkit on a terminal, plain lines when stdin or stdout is not one.

Both readers raise ``EOFError`` when the user is done (Ctrl+D, end of input, a
terminal that went away) and ``KeyboardInterrupt`` for Ctrl+C at the prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History as ToolkitHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from lull.ui.line.complete import LineCompleter
from lull.ui.shared.history import History


class PromptHistory(ToolkitHistory):
    """prompt-toolkit's view of :class:`lull.ui.shared.history.History` (shared with the TUI)."""

    def __init__(self, history: History) -> None:
        super().__init__()
        self.history = history

    def load_history_strings(self) -> Iterable[str]:
        """Entries newest first, as prompt-toolkit expects."""
        return list(reversed(self.history.entries()))

    def store_string(self, string: str) -> None:
        """Persist one accepted input."""
        self.history.append(string)


def line_bindings() -> KeyBindings:
    """Enter sends (or takes the selected completion); Esc+Enter and Ctrl+J add a newline."""
    bindings = KeyBindings()

    @bindings.add("enter")
    def _send(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)
            return
        buffer.validate_and_handle()

    @bindings.add("escape", "enter")
    @bindings.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


class PromptInput:
    """Multi-line input with history, completion and a status toolbar.

    ``at_end`` is called when input ends (Ctrl+D, or the terminal going away: EOF or EIO)
    before ``EOFError`` is raised, so the caller can tell a vanished terminal from Ctrl+D.
    """

    def __init__(
        self,
        workspace: Path,
        history: History,
        toolbar: Callable[[], list[tuple[str, str]]],
        at_end: Callable[[], object] | None = None,
    ) -> None:
        self.at_end = at_end
        self.session: PromptSession[str] = PromptSession(
            history=PromptHistory(history),
            multiline=True,
            key_bindings=line_bindings(),
            completer=LineCompleter(workspace),
            complete_while_typing=True,
            prompt_continuation=lambda width, line, wrap: "." * (width - 1) + " ",
            bottom_toolbar=lambda: FormattedText(toolbar()),
        )
        self._questions: PromptSession[str] | None = None

    async def read(self, prompt: str, default: str = "") -> str:
        """One message (may span lines), starting from ``default``."""
        return await self._prompt(self.session, prompt, default)

    async def ask(self, question: str) -> str:
        """A one-line answer (no history, no completion)."""
        if self._questions is None:
            self._questions = PromptSession()
        return await self._prompt(self._questions, question)

    async def _prompt(self, session: PromptSession[str], text: str, default: str = "") -> str:
        try:
            return await session.prompt_async(text, handle_sigint=False, default=default)
        except (EOFError, OSError):  # OSError: EIO, the terminal went away
            if self.at_end is not None:
                self.at_end()
            raise EOFError from None


class PlainInput:
    """Line by line from a pipe or a non-terminal; each line is one message."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    async def read(self, prompt: str, default: str = "") -> str:
        """The next line (without its newline); a pipe cannot be pre-filled."""
        if self.stdout.isatty():
            self.stdout.write(prompt)
            self.stdout.flush()
        return await _in_daemon_thread(self._readline)

    async def ask(self, question: str) -> str:
        """Questions are read the same way as messages (and echoed so logs show them)."""
        self.stdout.write(question)
        self.stdout.flush()
        answer = await _in_daemon_thread(self._readline)
        if not self.stdout.isatty():
            self.stdout.write(answer + "\n")
        return answer

    def _readline(self) -> str:
        try:
            line = self.stdin.readline()
        except OSError:  # EIO: the terminal went away
            raise EOFError from None
        if not line:
            raise EOFError
        return line.rstrip("\r\n")


async def _in_daemon_thread(read: Callable[[], str]) -> str:
    """Run a blocking read in a daemon thread, so quitting never waits for it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def deliver(value: str | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value or "")

    def work() -> None:
        value: str | None = None
        error: BaseException | None = None
        try:
            value = read()
        except BaseException as raised:  # handed to the awaiting coroutine
            error = raised
        with contextlib.suppress(RuntimeError):  # the loop is gone: lull is quitting
            loop.call_soon_threadsafe(deliver, value, error)

    threading.Thread(target=work, daemon=True, name="lull-stdin").start()
    return await future
