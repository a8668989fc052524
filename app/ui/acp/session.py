"""One ACP session: a lull :class:`~lull.runtime.Runtime` in the session's directory, the
turns its prompts run, and how their events reach the editor.

A prompt is a message (a turn), a ``/command`` (run as in the terminal, its result carried
out by :func:`~lull.ui.shared.command_result.show_result`) or a ``!shell`` line. Only one
runs at a time; ``session/cancel`` stops it, and every tool call the editor saw gets its
final update before the prompt answers ``cancelled``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Literal

from lull.model.events import Event, TurnFinished
from lull.runtime import Runtime
from lull.tools.base import EditorFiles, EditorTerminal
from lull.ui.acp.permissions import ClientApprover
from lull.ui.acp.prompts import typed_text, user_prompt
from lull.ui.acp.replay import replayed
from lull.ui.acp.tool_calls import ToolCallTracker
from lull.ui.acp.updates import EventUpdates, notice_chunk
from lull.ui.shared.command_result import show_result
from lull.ui.shared.commands import is_command
from lull.ui.shared.user_shell import is_shell, shell_stream

if TYPE_CHECKING:
    from acp.helpers import ContentBlock
    from acp.interfaces import Client

    from lull.commands import FollowUp, SessionChoice
    from lull.ui.acp.updates import AnyUpdate

log = logging.getLogger("lull.acp")

AcpStopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
"""The ACP schema's ``StopReason``: why a prompt ended."""


def stop_reason(finished: TurnFinished | None) -> AcpStopReason:
    """The ACP stop reason of a turn that ended with ``finished`` (None: it failed or ran
    no model request; the editor has the notice)."""
    if finished is None:
        return "end_turn"
    match finished.stop_reason:
        case "max_tokens" | "refusal":
            return finished.stop_reason
        case "max_turns":
            return "max_turn_requests"
        case _:
            return "end_turn"


class AcpSession:
    """A lull session held for an editor: the runtime, the running prompt, the updates."""

    def __init__(self, session_id: str, runtime: Runtime, client: Client) -> None:
        self.id = session_id
        self.runtime = runtime
        self.client = client
        self.tracker = ToolCallTracker(runtime.workspace)
        self._turn: asyncio.Task[None] | None = None
        self._cancelled = False
        self._events = EventUpdates(self.tracker, runtime.session_cost)
        approver = ClientApprover(client, session_id, self.tracker, self.send)
        runtime.agent.set_approver(approver)

    def use_editor_files(self, files: EditorFiles | None) -> None:
        """Read and write file text through the editor (its ``fs/*``), or the disk (None)."""
        tools = self.runtime.agent.tools
        tools.context = dataclasses.replace(tools.context, editor=files)

    def use_editor_terminal(self, terminal: EditorTerminal | None) -> None:
        """Run commands in the editor's terminal (its ``terminal/*``), or lull's own (None)."""
        tools = self.runtime.agent.tools
        tools.context = dataclasses.replace(tools.context, terminal=terminal)

    async def show_terminal(self, call_id: str, terminal_id: str) -> None:
        """The editor's terminal ``terminal_id`` runs call ``call_id``: show it in the call."""
        update = self.tracker.terminal(call_id, terminal_id)
        if update is not None:
            await self.send(update)

    async def send(self, update: AnyUpdate) -> None:
        """Deliver one ``session/update`` to the editor."""
        await self.client.session_update(session_id=self.id, update=update)

    async def say(self, text: str) -> None:
        """A lull notice, as the terminal would show it."""
        await self.send(notice_chunk(text))

    async def replay(self) -> None:
        """Send the saved conversation (``session/load``)."""
        for update in replayed(self.runtime.agent.session.shown(), self.runtime.workspace):
            await self.send(update)

    # --- prompts ------------------------------------------------------------------------------

    async def prompt(self, blocks: Sequence[ContentBlock]) -> AcpStopReason:
        """Run one prompt to its end; returns why it ended."""
        if self._turn is not None and not self._turn.done():
            await self.say("a prompt is still running; cancel it first")
            return "end_turn"
        self._cancelled = False
        self._events.finished = None
        text = typed_text(blocks)
        if is_command(text):
            from lull.commands import run_command

            await show_result(self, text, run_command(self.runtime, text))
            return "cancelled" if self._cancelled else "end_turn"
        if is_shell(text):
            await self.drive(shell_stream(self.runtime, text))
            return "cancelled" if self._cancelled else "end_turn"
        workspace = self.runtime.workspace
        message = user_prompt(blocks, workspace, self.runtime.image_refusal())
        for note in message.notes:
            await self.say(note)
        if not message.text.strip() and not message.images:
            await self.say("the prompt was empty; nothing was sent")
            return "end_turn"
        await self.drive(self.runtime.agent.run_turn(message.text, message.images))
        return "cancelled" if self._cancelled else stop_reason(self._events.finished)

    def cancel(self) -> None:
        """``session/cancel``: stop the running prompt (its tool calls get their results)."""
        if self._turn is not None and not self._turn.done():
            self._cancelled = True
            self._turn.cancel()

    async def drive(self, events: AsyncIterator[Event]) -> None:
        """Stream ``events`` to the editor until they end or the prompt is cancelled."""
        task = asyncio.create_task(self._consume(events))
        self._turn = task
        try:
            await asyncio.wait({task})
        finally:
            self._turn = None
        if task.cancelled():
            for update in self.tracker.unfinished():
                await self.send(update)
            return
        error = task.exception()
        if error is not None:
            log.error("turn crashed", exc_info=error)
            for update in self.tracker.unfinished():
                await self.send(update)
            await self.say(f"error: {type(error).__name__}: {error} (details in the debug log)")

    async def _consume(self, events: AsyncIterator[Event]) -> None:
        try:
            async for event in events:
                for update in self._events.updates(event):
                    await self.send(update)
        finally:
            closer = getattr(events, "aclose", None)
            if closer is not None:
                await closer()

    # --- a command's result (ResultView) ------------------------------------------------------

    async def show_session(self) -> None:
        """The command switched the session (/clear, /resume): replay the one now open."""
        await self.say(f"now in session {self.runtime.agent.session.id}")
        await self.replay()

    async def show_lines(self, title: str, lines: tuple[str, ...], error: bool) -> None:
        """A command's lines, as a block of the agent's message."""
        from acp.helpers import update_agent_message_text

        body = "\n".join(lines)
        await self.send(update_agent_message_text(f"```\n{body}\n```\n" if body else ""))

    def offer_prompt(self, text: str) -> None:
        """An editor's prompt box is its own: the text is not put back."""

    async def show_event(self, event: Event) -> None:
        """A command's event, rendered like a turn's."""
        for update in self._events.updates(event):
            await self.send(update)

    async def quit(self) -> None:
        """The editor ends the session itself (it closes lull's stdin)."""
        await self.say("close the agent panel to end the session")

    async def pick_session(self, choices: tuple[SessionChoice, ...]) -> None:
        """No picker in a prompt: list the sessions and how to resume one."""
        from lull.commands import choice_line

        lines = tuple(choice_line(choice) for choice in choices)
        await self.show_lines("/resume", (*lines, "resume one with /resume ID"), False)

    async def pick_follow_up(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        """No picker in a prompt: list the choices as the commands that make them."""
        lines = tuple(f"{choice.command}  ({choice.label})" for choice in choices)
        await self.show_lines(question, (question, *lines), False)

    def session_opened(self) -> None:
        """A new session's SessionStart hooks run before its first prompt (the engine)."""
        self.runtime.agent.set_approver(
            ClientApprover(self.client, self.id, self.tracker, self.send)
        )

    # --- the end ------------------------------------------------------------------------------

    async def close(self) -> str | None:
        """Stop a running prompt and the MCP servers, close the session file; what could
        not be saved, in one line."""
        self.cancel()
        await self.runtime.end_session("other")
        await self.runtime.stop_tools()
        return self.runtime.close()
