"""lull's own stream-json lines: what Claude Code's schema has no type for.

Each is ``{"type": "lull", "subtype": KIND, "session_id": ..., ...}``: a parser of Claude Code's
stream skips a type it does not know, and a script that wants lull's detail reads these.
Subtypes: ``request`` (one model request's usage and cost), ``context_edit``, ``discarded``
(streamed text thrown away), ``subagent``, ``guardrail``, ``attempt_start``, ``attempt``,
``notice`` (also each ``@path`` attached or not), ``prompt_offloaded``, ``tool_repairs`` (what
lull fixed in a call's arguments).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, assert_never

from lull.model.edits import edit_to_dict
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
from lull.ui.headless.costs import request_cost, usage_cost

LullSubtype = Literal[
    "request",
    "context_edit",
    "discarded",
    "subagent",
    "guardrail",
    "attempt_start",
    "attempt",
    "notice",
    "prompt_offloaded",
    "tool_repairs",
]


def lull_line(subtype: LullSubtype, session_id: str, **fields: Any) -> dict[str, Any]:
    """One line of lull's own type."""
    return {"type": "lull", "subtype": subtype, "session_id": session_id, **fields}


def extra_line(
    event: Event, session_id: str, pricing: Sequence[str] = (), *, local: bool = False
) -> dict[str, Any] | None:
    """lull's own line for ``event``, or None when Claude Code's lines say it all
    (``pricing``: the price overrides setting; ``local``: the endpoint is on this machine or
    network)."""
    match event:
        case RequestFinished():
            return lull_line(
                "request",
                session_id,
                request=event.index,
                purpose=event.purpose,
                model=event.model,
                usage=event.usage.to_dict(),
                usage_reported=event.usage.reported,
                cache_hit_ratio=_rounded(event.usage.cache_hit_ratio),
                cost_usd=_rounded(request_cost(event, pricing, local=local), 6),
                context_tokens=event.context_tokens,
            )
        case ContextEdited(edit, description):
            return lull_line(
                "context_edit", session_id, description=description, edit=edit_to_dict(edit)
            )
        case AttemptDiscarded(text, reason):
            return lull_line("discarded", session_id, text=text, reason=reason)
        case SubagentUpdate(usage=usage):
            data: dict[str, Any] = {
                "id": event.call_id,
                "agent": event.agent,
                "step": event.step,
                "text": event.text,
                "subagent_session_id": event.session_id,
            }
            if usage is not None:
                data["usage"] = usage.to_dict()
                data["model"] = event.model
                data["cost_usd"] = _rounded(usage_cost(usage, event.model, pricing, local=local), 6)
            return lull_line("subagent", session_id, **data)
        case GuardrailTriggered(kind, text, reason):
            return lull_line("guardrail", session_id, kind=kind, text=text, reason=reason)
        case AttemptStarted(number, total):
            return lull_line("attempt_start", session_id, attempt=number, of=total)
        case AttemptFinished():
            return lull_line(
                "attempt",
                session_id,
                attempt=event.number,
                outcome=event.outcome,
                failure_type=event.failure_type,
                summary=event.summary,
            )
        case Notice(level, text):
            return lull_line("notice", session_id, level=level, text=text)
        case PromptOffloaded(path, tokens, limit, text):
            return lull_line(
                "prompt_offloaded", session_id, path=path, tokens=tokens, limit=limit, text=text
            )
        case ToolStarted(call, _, repairs):
            if not repairs:
                return None
            return lull_line("tool_repairs", session_id, id=call.id, repairs=list(repairs))
        case (
            TurnStarted()
            | AssistantText()
            | AssistantThinking()
            | ToolFinished()
            | TurnFinished()
            | TurnFailed()
        ):
            return None
        case _:
            assert_never(event)


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)
