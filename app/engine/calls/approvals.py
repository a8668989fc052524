"""The built-in approvers: for runs with nobody to ask, and for tests."""

from __future__ import annotations

from lull.model.approvals import Approval
from lull.model.messages import ToolCall


class DenyApprover:
    """Denies everything that needs approval: for runs with no terminal to ask on (``-p``),
    so a run never hangs on a question."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """Always deny, with the configured reason."""
        return Approval("deny", self.reason)


class AllowApprover:
    """Allows everything (used in tests and by front ends after 'allow always')."""

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """Always allow."""
        return Approval("allow")
