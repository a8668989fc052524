"""What an ACP session offers besides prompts: lull's approval modes as session modes, and
its slash commands (built-in and the user's own) as available commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lull.model.approvals import ALL_APPROVAL_MODES, ApprovalMode

if TYPE_CHECKING:
    from acp.schema import AvailableCommand, SessionModeState

MODE_NAMES: dict[ApprovalMode, tuple[str, str]] = {
    "default": ("Ask", "ask before edits and shell commands"),
    "auto-edit": ("Auto-edit", "edit files without asking; ask before shell commands"),
    "yolo": ("Yolo", "never ask (deny rules still refuse)"),
    "plan": ("Plan", "read-only tools only"),
    "dont-ask": ("Don't ask", "refuse what would be asked about; run only what rules allow"),
}
EDITOR_ONLY_COMMANDS = frozenset({"quit", "exit"})
"""Commands that make no sense inside an editor (it closes the session itself)."""


def approval_mode(mode_id: str) -> ApprovalMode | None:
    """The approval mode a session mode id names (None: no such mode)."""
    for mode in ALL_APPROVAL_MODES:
        if mode == mode_id:
            return mode
    return None


def session_modes(current: ApprovalMode) -> SessionModeState:
    """lull's approval modes as ACP session modes, ``current`` selected."""
    from acp.schema import SessionMode, SessionModeState

    return SessionModeState(
        current_mode_id=current,
        available_modes=[
            SessionMode(id=mode, name=MODE_NAMES[mode][0], description=MODE_NAMES[mode][1])
            for mode in ALL_APPROVAL_MODES
        ],
    )


def available_commands(workspace: Path) -> list[AvailableCommand]:
    """The slash commands a prompt may start with: lull's, then the custom ones."""
    from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

    from lull.commands.registry import command_entries

    hint = AvailableCommandInput(root=UnstructuredCommandInput(hint="arguments"))
    return [
        AvailableCommand(name=name, description=summary or name, input=hint)
        for name, summary in command_entries(workspace)
        if name not in EDITOR_ONLY_COMMANDS
    ]
