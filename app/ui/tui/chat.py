"""Sending what the user types: prompts become turns, ``/commands`` go to lull.commands.

One thing runs at a time; what is typed meanwhile (or before the runtime is
ready) waits in a queue and is shown as queued. A turn's events are read by a
producer task and rendered by the consumer (a Textual worker), so an
interrupt always cancels the engine inside its own generator — where it gives
the running tool call a "cancelled" result — however slow rendering is.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, assert_never

from textual.worker import Worker

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
from lull.model.messages import ToolCall
from lull.tools.media.mentions import expand_mentions
from lull.ui.shared.command_result import show_result
from lull.ui.shared.commands import is_command, is_quit
from lull.ui.shared.facts import facts_for
from lull.ui.shared.status import StatusFacts
from lull.ui.shared.user_shell import EMPTY_SHELL_HINT, is_shell, shell_command, shell_stream
from lull.ui.shared.waiting import FirstTokenWait
from lull.ui.tui.approver import ModalApprover
from lull.ui.tui.renderer import TurnRenderer, transcript_widgets
from lull.ui.tui.widgets.command_output import CommandOutput
from lull.ui.tui.widgets.conversation import Conversation
from lull.ui.tui.widgets.prompt_input import PromptInput
from lull.ui.tui.widgets.status_bar import StatusBar
from lull.ui.tui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from textual.app import App

    from lull.commands import CommandResult, FollowUp, SessionChoice
    from lull.runtime import Runtime

log = logging.getLogger("lull.tui")

REPLAY_LIMIT = 120


@dataclass
class Pending:
    """Something typed that waits for its turn, and the widget showing it as queued."""

    text: str
    widget: UserMessage | None = None


class Chat:
    """The conversation's controller: queue, turns, commands, interrupts and status."""

    def __init__(
        self,
        app: App[Any],
        conversation: Conversation,
        status: StatusBar,
        quit_app: Callable[[], Any],
    ) -> None:
        self.app = app
        self.conversation = conversation
        self.status = status
        self.quit_app = quit_app
        self.renderer = TurnRenderer(conversation)
        self.runtime: Runtime | None = None
        self.queue: deque[Pending] = deque()
        self.worker: Worker[None] | None = None
        self.idle = asyncio.Event()
        self.idle.set()
        self._context_tokens: int | None = None
        self._asking_call: ToolCall | None = None  # the call the approval modal asks about
        self.waits = FirstTokenWait(status.clock)  # "waiting 12s", then the time to first token

    @property
    def busy(self) -> bool:
        """Whether a turn (or a streaming command) is running."""
        return self.worker is not None

    # --- runtime ----------------------------------------------------------------------

    async def attach(
        self, runtime: Runtime, notes: list[tuple[str, str]], context_tokens: int | None = None
    ) -> None:
        """The runtime is ready: ask with the modal, show a resumed transcript, drain the queue."""
        self.runtime = runtime
        runtime.agent.set_approver(ModalApprover(self.app, self._asking))
        # MCP servers start in the background, after the first paint; a failure shows at once
        runtime.start_tools(on_notice=self._background_notice)
        if runtime.agent.session.transcript:
            await self.redraw()
        for text, level in notes:
            await self.renderer.note(text, level)
        self._context_tokens = context_tokens
        self.refresh_status("ready")
        await self.next()

    def _background_notice(self, notice: Notice) -> None:
        """A notice from something running beside the chat (an MCP server that did not
        start), shown when it happens."""
        self.app.run_worker(self.renderer.note(notice.text, notice.level), group="notices")

    def session_opened(self) -> bool:
        """Run the ``SessionStart`` hooks of a session that opened (at start, ``/clear``,
        ``/resume``) before its first prompt; True when they started (queued input waits)."""
        if self.runtime is None or self.busy or not self.runtime.agent.lifecycle.start_pending:
            return False
        self.start(self.runtime.agent.start_session(), "running SessionStart hooks")
        return True

    async def redraw(self) -> None:
        """Show the agent's session from scratch (after resume, /clear, /resume)."""
        if self.runtime is None:
            return
        messages = self.runtime.agent.session.shown()
        await self.conversation.reset()
        if len(messages) > REPLAY_LIMIT:
            hidden = len(messages) - REPLAY_LIMIT
            await self.renderer.note(f"{hidden} earlier messages are in the session file", "info")
        await self.conversation.add_all(transcript_widgets(messages[-REPLAY_LIMIT:]))
        for item in self.queue:  # typed while lull was starting: still waiting, still shown
            item.widget = UserMessage(item.text, queued=True)
            await self.conversation.add(item.widget)
        self._context_tokens = None

    def refresh_status(self, state: str | None = None) -> None:
        """Re-read the runtime into the status bar (``state`` replaces the state word)."""
        state = state if state is not None else self.status.facts.state
        if self.runtime is None:
            self.status.change(state=state)
            return
        facts = facts_for(self.runtime, state, self._context_tokens)
        self._context_tokens = facts.context_tokens  # an estimate is kept until the view changes
        self.status.show(self._with_waits(facts))

    def _with_waits(self, facts: StatusFacts) -> StatusFacts:
        """``facts`` with the current wait for a first token and the last one's length."""
        return replace(
            facts, waiting_since=self.waits.since, first_token_seconds=self.waits.last_seconds
        )

    def _asking(self, call: ToolCall | None) -> None:
        self._asking_call = call
        self._state("waiting for approval" if call else "waiting for the model", force=True)

    def _state(self, word: str, *, force: bool = False) -> None:
        """Show what lull is doing (an open approval question wins over stream events)."""
        if force or self._asking_call is None:
            self.status.change(state=word)

    # --- input ------------------------------------------------------------------------

    async def submit(self, text: str) -> None:
        """Handle one input: run it now, or queue it (shown as queued) if lull is busy."""
        if is_quit(text):
            await self.quit_app()
            return
        if self.busy or self.runtime is None:
            widget = UserMessage(text, queued=True)
            await self.conversation.add(widget)
            self.queue.append(Pending(text, widget))
            return
        await self._dispatch(Pending(text))

    async def next(self) -> None:
        """Run queued inputs until one starts a turn (commands finish at once); a session that
        opened runs its SessionStart hooks first (the queue waits for them)."""
        if self.session_opened():
            return
        while self.queue and not self.busy and self.runtime is not None:
            await self._dispatch(self.queue.popleft())

    async def _dispatch(self, item: Pending) -> None:
        if item.widget is not None:
            item.widget.mark_sent()
        if is_command(item.text):
            await self.command(item.text)
            return
        if item.widget is None:
            await self.conversation.add(UserMessage(item.text))
        assert self.runtime is not None
        if is_shell(item.text):
            if not shell_command(item.text):
                await self.renderer.note(EMPTY_SHELL_HINT, "warning")
                return
            self.start(shell_stream(self.runtime, item.text))
            return
        refusal = self.runtime.image_refusal()
        expansion = expand_mentions(item.text, self.runtime.workspace, refusal)
        for mention in expansion.mentions:
            await self.renderer.note(mention.note, "info" if mention.attached else "warning")
        self.start(self.runtime.agent.run_turn(expansion.prompt, expansion.images))

    # --- commands ---------------------------------------------------------------------

    async def command(self, text: str) -> None:
        """Run a slash command and show its result."""
        from lull.commands import run_command

        assert self.runtime is not None
        await self.apply(text.strip(), run_command(self.runtime, text))

    async def apply(self, title: str, result: CommandResult) -> None:
        """Carry out a command's result (``ui/shared/command_result.py`` decides the order)."""
        await show_result(self, title, result)
        if not result.quit:
            self.refresh_status()

    # --- a command result's actions (ResultView) ----------------------------------------

    async def show_session(self) -> None:
        """Show the new session from scratch."""
        await self.redraw()

    async def show_lines(self, title: str, lines: tuple[str, ...], error: bool) -> None:
        """A command's lines as one block under its command line."""
        await self.conversation.add(CommandOutput(title, lines, error=error))

    def offer_prompt(self, text: str) -> None:
        """Put ``text`` in the prompt box."""
        self.app.query_one(PromptInput).offer(text)

    async def show_event(self, event: Event) -> None:
        """Render an event as a turn's."""
        await self.renderer.handle(event)
        self._follow(event)

    async def quit(self) -> None:
        """Leave lull."""
        await self.quit_app()

    async def pick_session(self, choices: tuple[SessionChoice, ...]) -> None:
        """The session picker; the chosen session is resumed."""
        from lull.ui.tui.screens.session_picker import SessionPicker

        self.app.push_screen(SessionPicker(choices), callback=self._picked)

    async def pick_follow_up(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        """The follow-up picker; the chosen command runs."""
        from lull.ui.tui.screens.choice_picker import ChoicePicker

        self.app.push_screen(ChoicePicker(question, choices), callback=self._followed)

    async def drive(self, stream: AsyncIterator[Event]) -> None:
        """Drive a command's stream in a worker, like a turn."""
        self.start(stream)

    async def _followed(self, command: str | None) -> None:
        if command is not None and self.runtime is not None:
            await self.command(command)

    async def _picked(self, session_id: str | None) -> None:
        from lull.commands import resume_session

        if session_id is None or self.runtime is None:
            return
        await self.apply(f"/resume {session_id[:8]}", resume_session(self.runtime, session_id))

    # --- turns ------------------------------------------------------------------------

    def start(self, events: AsyncIterator[Event], state: str = "waiting for the model") -> None:
        """Render ``events`` (a turn or a command's stream) in a worker."""
        self.idle.clear()
        self.refresh_status(state)
        self.worker = self.app.run_worker(self._drive(events), group="turn", exit_on_error=False)

    async def _drive(self, events: AsyncIterator[Event]) -> None:
        queue: asyncio.Queue[Event | None] = asyncio.Queue()

        async def produce() -> None:
            try:
                async for event in events:
                    queue.put_nowait(event)
                    # a burst of buffered deltas (a fast server) would otherwise be read whole
                    # before the screen runs once: hand over after every event
                    await asyncio.sleep(0)
            finally:
                queue.put_nowait(None)

        producer = asyncio.create_task(produce())
        try:
            while (event := await queue.get()) is not None:
                await self.renderer.handle(event)
                self._follow(event)
            await producer
        except asyncio.CancelledError:
            asked = self._asking_call  # the modal closes when the producer stops
            producer.cancel()
            await asyncio.gather(producer, return_exceptions=True)
            await self.renderer.interrupt(asked)
            raise
        except Exception as error:  # a bug must not take the UI down; the session stays valid
            log.exception("turn failed")
            producer.cancel()  # (a no-op when the engine itself raised)
            await asyncio.gather(producer, return_exceptions=True)
            await self.renderer.note(f"error: {type(error).__name__}: {error}", "error")
        finally:
            self.worker = None
            self.idle.set()
            self.waits.reset()
            self.refresh_status("ready")
            self.app.call_later(self.next)

    def _follow(self, event: Event) -> None:
        """Keep the status bar's state word, wait and context figure in step with the turn."""
        was_waiting = self.waits.since
        self.waits.observe(event)
        if self.waits.since != was_waiting:
            self.status.show(self._with_waits(self.status.facts))
        match event:
            case AssistantThinking():
                self._state("thinking")
            case AssistantText():
                self._state("answering")
            case ToolStarted(call):
                self._state(f"running {call.name}")
            case ToolFinished() | AttemptDiscarded():
                self._state("waiting for the model")
            case RequestFinished(context_tokens=tokens):
                self._context_tokens = tokens  # the next prompt, as the engine sees it
                self.refresh_status()
            case ContextEdited():
                self._context_tokens = None  # the view shrank: estimate it again
                self.refresh_status()
            case SubagentUpdate(step="request"):
                self.refresh_status()  # the sub-agent's cost counts
            case SubagentUpdate(agent=agent):
                self._state(f"sub-agent {agent} working")
            case GuardrailTriggered() | AttemptStarted() | AttemptFinished():
                pass
            case TurnStarted() | Notice() | PromptOffloaded() | TurnFinished() | TurnFailed():
                pass
            case _:
                assert_never(event)

    def interrupt(self) -> bool:
        """Stop the running turn (Esc); False if nothing was running."""
        if self.worker is None:
            return False
        self.worker.cancel()
        return True

    async def shutdown(self, timeout: float = 3.0) -> None:
        """Interrupt any turn and wait until the session is consistent again."""
        self.queue.clear()
        if self.interrupt():
            try:
                await asyncio.wait_for(self.idle.wait(), timeout)
            except TimeoutError:
                log.warning("turn did not stop within %.1f s at exit", timeout)
        if self.runtime is not None:
            try:  # the screen is closing: what SessionEnd hooks say goes to the log
                for notice in await self.runtime.end_session("prompt_input_exit"):
                    log.warning("%s", notice.text)
            except Exception:
                log.exception("SessionEnd hooks failed")
            try:
                await asyncio.wait_for(self.runtime.stop_tools(), timeout)
            except TimeoutError:
                log.warning("MCP servers did not stop within %.1f s at exit", timeout)

    def close(self) -> str | None:
        """Close the session file; the id to resume, if the session holds anything."""
        if self.runtime is None:
            return None
        session = self.runtime.agent.session
        session.close()
        return session.id if session.transcript else None
