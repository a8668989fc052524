"""Asking the user before a tool call runs.

The engine asks an :class:`Approver` (supplied by the front end) whenever the
permission policy says "ask". A front end with nobody to ask (``-p``) uses
:class:`DenyApprover`, so a run never hangs on a question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from app.model.messages import ToolCall

Decision = Literal["allow", "allow_always", "deny"]


@dataclass(frozen=True, slots=True)
class Approval:
    """The user's answer; ``reason`` (optional) is shown to the model on a denial."""

    decision: Decision
    reason: str | None = None


class Approver(Protocol):
    """Something that can ask the user about one tool call."""

    async def ask(self, call: ToolCall, summary: str) -> Approval:
        """Ask whether ``call`` may run; ``summary`` is its key argument."""
        ...


class DenyApprover:
    """Denies everything that needs approval: for runs with no terminal to ask on."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def ask(self, call: ToolCall, summary: str) -> Approval:
        """Always deny, with the configured reason."""
        return Approval("deny", self.reason)


class AllowApprover:
    """Allows everything (used in tests and by front ends after 'allow always')."""

    async def ask(self, call: ToolCall, summary: str) -> Approval:
        """Always allow."""
        return Approval("allow")
