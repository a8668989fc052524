"""The line-mode conversation loop: read, run a command or a turn, print, repeat.

Ctrl+C while a turn runs cancels it (the engine gives unfinished tool calls a
"cancelled" result, so the session stays valid); Ctrl+C at the prompt clears
the input; Ctrl+D (end of input) quits; so does the terminal going away
(:meth:`LineChat.hang_up`), which stops a running turn the same way first.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from lull.commands import CommandResult, FollowUp, SessionChoice, resume_session, run_command
from lull.engine.loop.agent import Agent
from lull.model.events import Event
from lull.runtime import Runtime
from lull.tools.media.mentions import expand_mentions
from lull.ui.line.render import EventPrinter
from lull.ui.line.status import Fragments, recap_lines, toolbar_fragments, turn_summary
from lull.ui.shared.command_result import show_result
from lull.ui.shared.commands import is_command
from lull.ui.shared.user_shell import EMPTY_SHELL_HINT, is_shell, shell_command, shell_stream

log = logging.getLogger("lull.line")

PROMPT = "> "
TICK_SECONDS = 0.5
PICK_QUESTION = "resume which? number or id (Enter cancels): "


class Reader(Protocol):
    """Where the line mode reads from (a terminal prompt, a pipe, a test script)."""

    async def read(self, prompt: str, default: str = "") -> str:
        """One message (``default``: text already in the input, to edit); EOFError ends the
        chat, KeyboardInterrupt drops the input."""
        ...

    async def ask(self, question: str) -> str:
        """A one-line answer to a question (approval, picker)."""
        ...


class LineChat:
    """One interactive line-mode chat over a runtime."""

    def __init__(
        self, runtime: Runtime, reader: Reader, printer: EventPrinter, workspace: Path
    ) -> None:
        self.runtime = runtime
        self.reader = reader
        self.printer = printer
        self.workspace = workspace
        self.status: Fragments = []
        self._turn: asyncio.Task[None] | None = None
        self._main: asyncio.Task[object] | None = None
        self._interrupted = False
        self.prefill = ""
        self.hung_up = False

    @property
    def agent(self) -> Agent:
        """The agent (the runtime may switch its session or provider)."""
        return self.runtime.agent

    async def run(self) -> None:
        """Chat until the user quits; Ctrl+C interrupts a running turn."""
        self._main = asyncio.current_task()
        with _on_sigint(self.interrupt):
            while await self.step():
                pass

    async def step(self) -> bool:
        """Read one input and act on it; False when the user quits. A session that opened
        (at start, ``/clear``, ``/resume``) first runs its ``SessionStart`` hooks."""
        if self.agent.lifecycle.start_pending:
            await self.drive(self.agent.start_session())
        self.status = toolbar_fragments(self.runtime)
        default, self.prefill = self.prefill, ""
        try:
            text = await self.reader.read(PROMPT, default)
        except KeyboardInterrupt:
            self.printer.note("Ctrl+D or /quit leaves lull")
            return True
        except EOFError:
            return False
        if not text.strip():
            return True
        if is_command(text):
            return await self.command(text)
        if is_shell(text):
            await self.shell(text)
            return True
        await self.send(text)
        return True

    async def shell(self, text: str) -> None:
        """Run a ``!command`` line: its output is shown and joins the conversation."""
        if not shell_command(text):
            self.printer.lines((EMPTY_SHELL_HINT,), error=True)
            return
        await self.drive(shell_stream(self.runtime, text))

    async def command(self, text: str) -> bool:
        """Run a slash command; False when it asks to quit."""
        result = run_command(self.runtime, text)
        await self.show(text.strip(), result)
        return not result.quit

    async def show(self, title: str, result: CommandResult) -> None:
        """Carry out a command's result (``ui/shared/command_result.py`` decides the order)."""
        await show_result(self, title, result)

    # --- a command result's actions (ResultView) ----------------------------------------

    async def show_session(self) -> None:
        """Recap the new session's conversation."""
        for line in recap_lines(self.agent.session):
            self.printer.line(line, "dim")

    async def show_lines(self, title: str, lines: tuple[str, ...], error: bool) -> None:
        """A command's lines (its command line is already on the screen)."""
        self.printer.lines(lines, error=error)

    def offer_prompt(self, text: str) -> None:
        """``text`` becomes the default of the next prompt."""
        self.prefill = text

    async def show_event(self, event: Event) -> None:
        """Print an event as a turn's."""
        self.printer.render(event)

    async def quit(self) -> None:
        """Nothing to do here: :meth:`command` ends the chat when it returns."""

    async def pick_follow_up(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        """Offer a command's choices by number; run the chosen one's command."""
        for number, choice in enumerate(choices, 1):
            self.printer.line(f"  {number}) {choice.label}")
        asked = f"{question or 'which?'} number (Enter cancels): "
        try:
            answer = (await self.reader.ask(asked)).strip()
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if not answer.isdigit() or not 1 <= int(answer) <= len(choices):
            self.printer.note("cancelled" if not answer else f"no choice {answer!r}; cancelled")
            return
        await self.command(choices[int(answer) - 1].command)

    async def pick_session(self, choices: tuple[SessionChoice, ...]) -> None:
        """Ask which listed session to resume (a number or an id prefix)."""
        try:
            answer = (await self.reader.ask(PICK_QUESTION)).strip()
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if not answer:
            self.printer.note("resume cancelled")
            return
        chosen = answer
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            chosen = choices[int(answer) - 1].id
        await self.show(f"/resume {chosen}", resume_session(self.runtime, chosen))

    def session_opened(self) -> None:
        """Nothing to do here: :meth:`step` runs a new session's SessionStart hooks before
        it reads the next input."""

    async def send(self, text: str) -> None:
        """Send a message (with the files it mentions) as one turn."""
        expanded = expand_mentions(text, self.workspace, self.runtime.image_refusal())
        for note in expanded.notes:
            self.printer.note(note)
        await self.drive(self.agent.run_turn(expanded.prompt, expanded.images))
        if self.printer.turn_requests:
            self.printer.note(turn_summary(self.runtime, self.printer))

    async def drive(self, events: AsyncIterator[Event]) -> None:
        """Print a stream of events until it ends or the user interrupts it."""
        self._interrupted = False
        task = asyncio.create_task(self._consume(events))
        ticker = asyncio.create_task(self._tick())
        self._turn = task
        try:
            await asyncio.wait({task})
        finally:
            self._turn = None
            ticker.cancel()
            self.printer.stop_waiting()
        if task.cancelled() or self._interrupted:
            self.printer.interrupted()
            return
        error = task.exception()
        if error is not None:
            log.error("turn crashed", exc_info=error)
            self.printer.error(f"{type(error).__name__}: {error} (details in the debug log)")

    async def _consume(self, events: AsyncIterator[Event]) -> None:
        try:
            async for event in events:
                self.printer.render(event)
        finally:
            closer = getattr(events, "aclose", None)
            if closer is not None:
                await closer()
        self.printer.end_stream()

    async def _tick(self) -> None:
        """Keep the waiting line's seconds moving while the turn runs."""
        while True:
            await asyncio.sleep(TICK_SECONDS)
            self.printer.tick()

    def hang_up(self) -> None:
        """The terminal went away: stop the running turn (its tool calls get a result) and
        leave; the caller closes the session."""
        self.hung_up = True
        if self._turn is not None and not self._turn.done():
            self._interrupted = True
            self._turn.cancel()
        if self._main is not None and not self._main.done():
            self._main.cancel()

    def interrupt(self) -> None:
        """Ctrl+C: cancel the running turn; with none running, leave lull."""
        if self._turn is not None and not self._turn.done():
            self._interrupted = True
            self._turn.cancel()
        elif self._main is not None and not self._main.done():
            self._main.cancel()


@contextmanager
def _on_sigint(handler: Callable[[], None]) -> Iterator[None]:
    """Route SIGINT to ``handler`` while the chat runs (main thread only)."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
    except (NotImplementedError, RuntimeError, ValueError):
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
