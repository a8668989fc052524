"""Lifecycle hooks: the events, and one configured command (the ``hooks`` setting, in Claude
Code's shape)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from lull.model import defaults
from lull.model.permissions import CLAUDE_CODE_NAMES

HookEvent = Literal[
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "Notification",
]
HOOK_EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
UNFIRED_EVENTS: frozenset[str] = frozenset(
    {
        "Setup",
        "PermissionDenied",
        "PostToolBatch",
        "UserPromptExpansion",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "InstructionsLoaded",
        "ConfigChange",
        "CwdChanged",
        "FileChanged",
        "WorktreeCreate",
        "WorktreeRemove",
        "Elicitation",
        "ElicitationResult",
    }
)
"""Events Claude Code documents that lull never fires (no such moment in lull): an entry for
one is a warning, not an error."""
SessionEndReason = Literal["clear", "resume", "prompt_input_exit", "other"]
"""Why a session ends (Claude Code's names): ``/clear``, another session resumed in its place,
the user left the interactive prompt, anything else (a ``-p`` run done)."""
SessionStartSource = Literal["startup", "resume", "clear", "compact"]
"""Why a session (re)starts: a new one, a resumed one, ``/clear``, after a compression."""
DEFAULT_HOOK_TIMEOUT = defaults.HOOK_TIMEOUT_SECONDS


@dataclass(frozen=True, slots=True)
class HookCommand:
    """One command run at ``event`` when ``matcher`` matches (empty or ``*``: always).

    For ``PreToolUse`` and ``PostToolUse`` the matcher is a regex over the tool's name (lull's
    or its Claude Code name: ``Bash`` matches ``run_shell_command``); for ``SessionStart`` over
    the source, for ``PreCompact`` over the trigger (``manual``, ``auto``), for
    ``Notification`` over the notification type. ``source`` is the settings file it came
    from; a ``project`` hook runs only in a trusted workspace.
    """

    event: HookEvent
    command: str
    matcher: str = ""
    timeout: float = DEFAULT_HOOK_TIMEOUT
    source: str = ""
    project: bool = False

    def matches(self, target: str) -> bool:
        """Whether this hook runs for ``target`` (a tool name, a source, a trigger)."""
        matcher = self.matcher.strip()
        if matcher in ("", "*"):
            return True
        names = (target, *CLAUDE_CODE_NAMES.get(target, ()))
        try:
            pattern = re.compile(matcher)
        except re.error:
            return matcher in names
        return any(pattern.fullmatch(name) for name in names)
