"""Rolled-back replies: model answers lull threw away and asked again ("this step never
happened"). They are kept in the session file, marked, so ``/context`` and the debug log can
show them, but they are never part of the transcript, so no request ever sends them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from lull.model.messages import Message, message_from_dict, message_to_dict

RollbackReason = Literal["tool_call_as_text", "refusal", "empty", "unknown_tool", "repetition"]
"""Why a reply was rolled back: a tool call written as text (tags or a bare JSON call), an
opening refusal, nothing said, a call to a tool that does not exist, or an answer that kept
repeating itself while streaming (cut off)."""
ROLLBACK_REASONS: tuple[RollbackReason, ...] = get_args(RollbackReason)

REASON_WORDS: dict[RollbackReason, str] = {
    "tool_call_as_text": "a tool call written as text",
    "refusal": "a refusal",
    "empty": "an empty reply",
    "unknown_tool": "a call to an unknown tool",
    "repetition": "an answer that kept repeating itself",
}


@dataclass(frozen=True, slots=True)
class RolledBack:
    """One rolled-back reply: the message as the model sent it, why, and when.

    ``detail`` is one line naming what was found (the tag, the unknown tool's name, the
    repeated text).
    """

    message: Message
    reason: RollbackReason
    detail: str
    at: float

    def describe(self) -> str:
        """One line for ``/context`` and the debug log."""
        return (
            f"{REASON_WORDS[self.reason]}: {self.detail}"
            if self.detail
            else (REASON_WORDS[self.reason])
        )


def rollback_to_dict(rolled: RolledBack) -> dict[str, Any]:
    """A JSON-ready dict for one rolled-back reply (a ``rollback`` line of a session file)."""
    return {
        "reason": rolled.reason,
        "detail": rolled.detail,
        "at": rolled.at,
        "message": message_to_dict(rolled.message),
    }


def rollback_from_dict(data: Mapping[str, Any]) -> RolledBack:
    """The rolled-back reply a ``rollback_to_dict`` dict stands for."""
    reason = data["reason"]
    if reason not in ROLLBACK_REASONS:
        raise ValueError(f"unknown rollback reason {reason!r}")
    return RolledBack(
        message_from_dict(data["message"]),
        reason,
        str(data.get("detail", "")),
        float(data["at"]),
    )
