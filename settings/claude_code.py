"""Claude Code's settings files read in place: ``~/.claude/settings.json`` (the user's),
``.claude/settings.local.json`` and ``.claude/settings.json`` (the project's).

What lull understands of them is turned into its own dotted keys, and the loader applies those
exactly as it applies ``settings.json`` and ``.lull/settings.json`` (a project's may only narrow;
its hooks, allow rules and added directories wait for ``/trust``):

- ``permissions.allow`` / ``ask`` / ``deny`` -> the same keys (rules in Claude Code's syntax);
- ``permissions.defaultMode`` -> ``tools.approvalMode`` (:data:`APPROVAL_MODES_BY_CLAUDE_MODE`);
- ``permissions.additionalDirectories`` -> the same key;
- ``hooks`` -> ``hooks``; ``model`` -> ``model.name``; ``env`` -> ``env`` (a project's, as
  every project ``env``, applies once the workspace is trusted).

Every other key is Claude Code's own (``statusLine``, ``enabledPlugins``, ...) and is left
alone without a word: the file is shared with Claude Code, not written for lull.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lull.model.approvals import CLAUDE_CODE_MODES, CLAUDE_CODE_NEAREST, ApprovalMode
from lull.settings.errors import show

APPROVAL_MODES_BY_CLAUDE_MODE: dict[str, ApprovalMode] = {
    claude: mode for mode, claude in CLAUDE_CODE_MODES.items()
}
"""Claude Code's ``permissions.defaultMode`` values and the approval mode each stands for."""
_RULE_KEYS = ("allow", "ask", "deny")
_SAME_KEYS = {"hooks": "hooks", "model": "model.name", "env": "env"}


@dataclass
class Translated:
    """A Claude Code settings file in lull's dotted keys, and what could not be used
    (warnings, each naming the file and the key)."""

    values: dict[str, object] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def translated(data: Mapping[str, Any], source: str) -> Translated:
    """The lull settings a Claude Code settings file (``data``, read from ``source``) sets."""
    out = Translated()
    for name, key in _SAME_KEYS.items():
        if name in data:
            out.values[key] = data[name]
    permissions = data.get("permissions")
    if permissions is None:
        return out
    if not isinstance(permissions, Mapping):
        out.problems.append(
            f"{source}: permissions: expected an object, got {show(permissions)}; ignored"
        )
        return out
    for effect in _RULE_KEYS:
        if effect in permissions:
            out.values[f"permissions.{effect}"] = permissions[effect]
    if "additionalDirectories" in permissions:
        out.values["permissions.additionalDirectories"] = permissions["additionalDirectories"]
    if "defaultMode" in permissions:
        mode = _approval_mode(permissions["defaultMode"], source, out.problems)
        if mode is not None:
            out.values["tools.approvalMode"] = mode
    return out


def _approval_mode(value: object, source: str, problems: list[str]) -> ApprovalMode | None:
    """The approval mode Claude Code's ``defaultMode`` stands for; None (said) when none."""
    if isinstance(value, str) and value in APPROVAL_MODES_BY_CLAUDE_MODE:
        return APPROVAL_MODES_BY_CLAUDE_MODE[value]
    if isinstance(value, str) and value in CLAUDE_CODE_NEAREST:
        mode, differs = CLAUDE_CODE_NEAREST[value]
        problems.append(
            f"{source}: permissions.defaultMode = {show(value)} runs as lull's {mode} mode: "
            f"{differs}"
        )
        return mode
    known = ", ".join([*APPROVAL_MODES_BY_CLAUDE_MODE, *CLAUDE_CODE_NEAREST])
    problems.append(
        f"{source}: permissions.defaultMode = {show(value)} is no permission mode; expected "
        f"one of {known}; ignored"
    )
    return None
