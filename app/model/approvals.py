"""Approval vocabulary: how freely tools may run, and the user's answer about one call.

The engine asks an :class:`Approver` (supplied by the front end) whenever the permission
policy says "ask"; the built-in approvers are in ``app/engine/approvals.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, get_args

from app.model.messages import ToolCall

ApprovalMode = Literal["default", "auto-edit", "yolo", "plan"]
"""default: ask before edits and shell commands; auto-edit: ask before shell commands;
yolo: never ask; plan: read-only tools only."""
APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)

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
