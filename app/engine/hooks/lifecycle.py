"""The hook events around a turn: ``SessionStart`` (as the session opens in the interactive
front ends, else at its first message; and after a compression), ``UserPromptSubmit``,
``Stop``, ``StopFailure``, ``PreCompact``, ``PostCompact`` and ``SessionEnd``. Tool events
(``PreToolUse``, ``PermissionRequest``, ``PostToolUse``, ``PostToolUseFailure``,
``Notification``) are the tool runner's; ``SubagentStart``/``SubagentStop`` the task tool's.

What hooks add for the model is appended to the conversation as a synthetic user message
(the session file keeps it); what they say to the user comes back as events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from lull.engine.hooks.runner import HookOutcome, HookRunner
from lull.engine.sessions.session import Session
from lull.model.edits import Summary, SummaryReason
from lull.model.events import Event, Notice, TurnFailed
from lull.model.hooks import HookEvent, SessionEndReason, SessionStartSource
from lull.model.messages import Message, Text

MAX_STOP_CONTINUATIONS = 5
"""How often Stop hooks may send the model back to work in one turn (a hook that ignores
``stop_hook_active`` would otherwise spend every request of ``maxTurns``)."""


class HookHost(Protocol):
    """Where a session's hooks run (the tool runner): its :class:`HookRunner`, the queue their
    notices go to, and one event's run for a session."""

    hooks: HookRunner
    progress: asyncio.Queue[Event]

    async def hook(
        self, event: HookEvent, session: Session, fields: Mapping[str, Any], target: str = ""
    ) -> HookOutcome:
        """Run ``event``'s hooks for ``session``; their notices go to :attr:`progress`."""
        ...


@dataclass
class PromptGate:
    """What the hooks said before a prompt: ``blocked`` (why, one line) or the ``context``
    to add after it; ``events`` for the user either way."""

    events: list[Event] = field(default_factory=list)
    blocked: str | None = None
    context: list[str] = field(default_factory=list)


class Lifecycle:
    """Runs one session's lifecycle hooks through a :class:`HookHost` (the tool runner)."""

    def __init__(
        self, tools: HookHost, session: Session, source: SessionStartSource | None = None
    ) -> None:
        self.tools = tools
        self.session = session
        self.source: SessionStartSource = source or ("resume" if session.transcript else "startup")
        self.started = False
        self._start_context: list[str] = []  # what SessionStart printed, for the first prompt
        self.stop_hook_active = False
        self.continuations = 0
        self.ended = False

    def _events(self) -> list[Event]:
        """The notices hooks left on the runner's queue."""
        events: list[Event] = []
        while not self.tools.progress.empty():
            events.append(self.tools.progress.get_nowait())
        return events

    async def before_prompt(self, prompt: str) -> PromptGate:
        """``SessionStart`` (once per session) and ``UserPromptSubmit`` for ``prompt``."""
        self.stop_hook_active = False
        self.continuations = 0
        gate = PromptGate()
        gate.events.extend(await self.start())
        self.add_context("session-start-hook", self._start_context)
        self._start_context = []
        outcome = await self.tools.hook("UserPromptSubmit", self.session, {"prompt": prompt})
        gate.events.extend(self._events())
        if outcome.blocked or outcome.stop:
            reason = outcome.reason or outcome.stop_reason
            gate.blocked = f"the prompt was blocked by a UserPromptSubmit hook: {reason}"
        gate.context = outcome.context
        return gate

    @property
    def start_pending(self) -> bool:
        """Whether ``SessionStart`` hooks wait to run for this session (front ends run them
        with :meth:`start` as it opens)."""
        return not self.started and bool(self.tools.hooks.matching("SessionStart", self.source))

    async def start(self) -> list[Event]:
        """``SessionStart``, once per session: what its commands print joins the conversation
        just before the first prompt (a session opened and left stays empty)."""
        if self.started:
            return []
        self.started = True
        events, self._start_context = await self._session_start(self.source)
        return events

    async def session_start(self, source: SessionStartSource) -> list[Event]:
        """``SessionStart`` again (after a compression): what its commands print becomes
        context before the next message."""
        events, context = await self._session_start(source)
        self.add_context("session-start-hook", context)
        return events

    async def _session_start(self, source: SessionStartSource) -> tuple[list[Event], list[str]]:
        outcome = await self.tools.hook("SessionStart", self.session, {"source": source}, source)
        events = self._events()
        if outcome.blocked:
            events.append(Notice("warning", f"SessionStart hook: {outcome.reason}"))
        return events, outcome.context

    def add_context(self, kind: str, context: list[str]) -> None:
        """Append hook output for the model as one synthetic user message."""
        if not context:
            return
        text = "\n".join(f"<{kind}>\n{item}\n</{kind}>" for item in context)
        self.session.add(Message("user", (Text(text),), origin="synthetic"))

    async def stop(self, answer: str) -> tuple[str | None, list[Event]]:
        """``Stop``: the reason the model must go on (added to the conversation), or None
        when the turn may end; with the events for the user."""
        fields = {"stop_hook_active": self.stop_hook_active, "last_assistant_message": answer}
        outcome = await self.tools.hook("Stop", self.session, fields)
        events = self._events()
        if not outcome.blocked or outcome.stop:
            return None, events
        if self.continuations >= MAX_STOP_CONTINUATIONS:
            events.append(
                Notice(
                    "warning",
                    f"a Stop hook kept the turn going {self.continuations} times; ending the "
                    f"turn anyway (its last reason: {outcome.reason})",
                )
            )
            return None, events
        self.continuations += 1
        self.stop_hook_active = True
        events.append(Notice("info", f"a Stop hook asks the model to go on: {outcome.reason}"))
        text = f"<stop-hook>\n{outcome.reason}\n</stop-hook>"
        self.session.add(Message("user", (Text(text),), origin="synthetic"))
        return outcome.reason, events

    async def pre_compact(self, reason: SummaryReason, focus: str | None) -> list[Event]:
        """``PreCompact`` before a summary (trigger ``manual`` for /compact, else ``auto``);
        it cannot stop the compression, its stderr is shown."""
        trigger = "manual" if reason == "manual" else "auto"
        fields = {"trigger": trigger, "custom_instructions": focus or ""}
        outcome = await self.tools.hook("PreCompact", self.session, fields, trigger)
        events = self._events()
        if outcome.blocked:
            events.append(Notice("warning", f"PreCompact hook: {outcome.reason}"))
        return events

    async def post_compact(self, summary: Summary) -> list[Event]:
        """``PostCompact`` after a summary replaced the older part (``compact_summary``: its
        text); it cannot undo it."""
        trigger = "manual" if summary.reason == "manual" else "auto"
        fields = {"trigger": trigger, "compact_summary": summary.text}
        outcome = await self.tools.hook("PostCompact", self.session, fields, trigger)
        events = self._events()
        if outcome.blocked:
            events.append(Notice("warning", f"PostCompact hook: {outcome.reason}"))
        return events

    async def stop_failure(self, failure: TurnFailed) -> list[Event]:
        """``StopFailure`` when a turn ends in an error instead of an answer (matched on the
        error's kind); what the hooks answer is only shown, the turn has ended."""
        fields = {
            "error": failure.kind,
            "error_details": failure.message,
            "last_assistant_message": _last_answer(self.session),
        }
        await self.tools.hook("StopFailure", self.session, fields, failure.kind)
        return self._events()

    async def end(self, reason: SessionEndReason) -> list[Event]:
        """``SessionEnd`` as the session closes (``/clear``, leaving the prompt, the end of a
        ``-p`` run); it cannot keep the session open. Runs once per session."""
        if self.ended:
            return []
        self.ended = True
        outcome = await self.tools.hook("SessionEnd", self.session, {"reason": reason}, reason)
        events = self._events()
        if outcome.blocked:
            events.append(Notice("warning", f"SessionEnd hook: {outcome.reason}"))
        return events


def _last_answer(session: Session) -> str:
    """The text of the last assistant message (empty when there is none)."""
    for message in reversed(session.transcript):
        if message.role == "assistant":
            return "".join(part.text for part in message.parts if isinstance(part, Text))
    return ""
