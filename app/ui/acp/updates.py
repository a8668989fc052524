"""The engine's events as ACP ``session/update`` payloads, one event at a time.

Answer text streams as ``agent_message_chunk``, reasoning as ``agent_thought_chunk``, tool
calls as ``tool_call`` / ``tool_call_update`` (:mod:`lull.ui.acp.tool_calls`), the model's
to-do list as ``plan`` (:mod:`lull.ui.acp.plans`). What lull's
terminal front ends show as a notice (idle cleanup, compression, a guardrail, a warning)
reaches the editor as its own paragraph of the agent's message, prefixed ``lull:``, so an
editor user reads what a terminal user reads; the context size and the session's cost go as
``usage_update``.
"""

from __future__ import annotations

from collections.abc import Callable
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
from lull.model.text import terminal_text
from lull.ui.acp.plans import todo_plan
from lull.ui.acp.tool_calls import ToolCallTracker

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate
    from acp.schema import AgentMessageChunk, UsageUpdate

    AnyUpdate = SessionUpdate | UsageUpdate


def notice_chunk(text: str) -> AgentMessageChunk:
    """A lull notice as its own paragraph of the agent's message (``lull: …``)."""
    from acp.helpers import update_agent_message_text

    return update_agent_message_text(f"\n\n*lull: {terminal_text(text)}*\n\n")


class EventUpdates:
    """Turns one session's engine events into ACP updates (stateful: the tool calls seen,
    the sub-agent steps of each ``task`` call, the turn's end)."""

    def __init__(self, tracker: ToolCallTracker, cost: Callable[[], float | None]) -> None:
        self.tracker = tracker
        self._cost = cost
        self._steps: dict[str, list[str]] = {}
        self.finished: TurnFinished | None = None
        self.failed: TurnFailed | None = None

    def updates(self, event: Event) -> list[AnyUpdate]:
        """The updates that say ``event`` (none for the events an editor has no use for)."""
        from acp.helpers import update_agent_message_text, update_agent_thought_text

        match event:
            case AssistantText(text):
                return [update_agent_message_text(text)] if text else []
            case AssistantThinking(text):
                return [update_agent_thought_text(text)] if text else []
            case ToolStarted(call, summary):
                announced = self.tracker.start(call, summary)
                return [*([announced] if announced else []), self.tracker.running(call)]
            case ToolFinished(call, result):
                announced = self.tracker.start(call, call.name)
                plan = todo_plan(call, result)
                finished: list[AnyUpdate] = [self.tracker.finish(call, result)]
                return [*([announced] if announced else []), *finished, *([plan] if plan else [])]
            case SubagentUpdate(call_id=call_id, step=step, text=text):
                if step == "request" or not text:
                    return []
                steps = self._steps.setdefault(call_id, [])
                steps.append(f"{event.agent}: {text}" if step == "started" else text)
                return [self.tracker.note(call_id, steps)]
            case RequestFinished():
                return self._usage(event)
            case ContextEdited(_, description):
                return [notice_chunk(description)]
            case Notice(level, text):
                return [notice_chunk(text if level == "info" else f"{level}: {text}")]
            case GuardrailTriggered(_, text) | PromptOffloaded(text=text):
                return [notice_chunk(text)]
            case AttemptDiscarded(_, reason):
                return [notice_chunk(f"the answer so far was discarded ({reason})")]
            case TurnFinished(detail=detail):
                self.finished = event
                return [notice_chunk(detail)] if detail else []
            case TurnFailed(message):
                self.failed = event
                return [notice_chunk(f"error: {message}")]
            case TurnStarted() | AttemptStarted() | AttemptFinished():
                return []
            case _:
                assert_never(event)

    def _usage(self, event: RequestFinished) -> list[AnyUpdate]:
        """How full the context is and what the session cost so far (a window of 0 is
        unknown: nothing to say)."""
        from acp.schema import Cost, UsageUpdate

        if event.context_window <= 0 or event.purpose != "turn":
            return []
        cost = self._cost()
        return [
            UsageUpdate(
                session_update="usage_update",
                used=max(0, event.context_tokens),
                size=event.context_window,
                cost=None if cost is None else Cost(amount=round(cost, 6), currency="USD"),
            )
        ]
