"""Approval vocabulary: how freely tools may run, and the user's answer about one call.

The engine asks an :class:`Approver` (supplied by the front end) whenever the permission
policy says "ask"; the built-in approvers are in ``app/engine/calls/approvals.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, get_args

from lull.model.messages import ToolCall
from lull.model.permissions import SaveScope

ApprovalMode = Literal["default", "auto-edit", "yolo", "plan", "dont-ask"]
"""default: ask before edits and shell commands; auto-edit: ask before shell commands;
yolo: never ask; plan: read-only tools only; dont-ask: as default, but what default would ask
about is refused without asking (only read-only tools and calls an allow rule pre-approves
run)."""
ALL_APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)
"""Every approval mode (what settings, flags and the policy accept)."""
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("default", "auto-edit", "yolo", "plan")
"""The modes a front end offers to switch between (``dont-ask`` is for scripts and locked-down
setups: it is set in settings or on the command line)."""
ClaudeCodeMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
CLAUDE_CODE_MODES: dict[ApprovalMode, ClaudeCodeMode] = {
    "default": "default",
    "auto-edit": "acceptEdits",
    "plan": "plan",
    "yolo": "bypassPermissions",
    "dont-ask": "dontAsk",
}
"""lull's approval modes by the names Claude Code gives them (``defaultMode``,
``--permission-mode``, a hook's ``permission_mode``, ``init``'s ``permissionMode``)."""
CLAUDE_CODE_NEAREST: dict[str, tuple[ApprovalMode, str]] = {
    "auto": (
        "auto-edit",
        "lull has no background safety check that approves other calls, so shell commands and "
        "web requests still ask (in -p: are refused)",
    ),
}
"""Claude Code's modes lull has no match for: the nearest lull mode, and what differs."""


Decision = Literal["allow", "allow_always", "deny"]


@dataclass(frozen=True, slots=True)
class Approval:
    """The user's answer; ``reason`` (optional) is shown to the model on a denial;
    ``remember`` says where an "allow always" answer is kept (this session, this workspace,
    or everywhere)."""

    decision: Decision
    reason: str | None = None
    remember: SaveScope = "session"


class Approver(Protocol):
    """Something that can ask the user about one tool call."""

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """Ask whether ``call`` may run; ``summary`` is its key argument, ``rules`` the allow
        rules an "allow always" answer would save (empty: it covers this exact call only)."""
        ...
