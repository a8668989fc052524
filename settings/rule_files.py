"""The user's permission rules for one workspace, and saving an "allow always" rule.

"Allow always ... this workspace" is kept in ``workspace-permissions.json`` in the user's
config directory (keyed by the workspace's path), never in the repository, so a repository
cannot ship allow rules that look like the user's; "... everywhere" goes to the user
settings file's ``permissions.allow``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, get_args

from lull.model.permissions import PermissionRule, RuleEffect
from lull.settings.checks import Invalid
from lull.settings.jsonfile import FileProblem, read_json_object
from lull.settings.paths import user_config_dir, user_settings_path
from lull.settings.permission_rules import RuleList
from lull.settings.writer import WriteProblem, dump_json, replace_file

WORKSPACE_RULES_FILE = "workspace-permissions.json"


def workspace_rules_path() -> Path:
    """The file of the user's rules per workspace (in the user's config directory)."""
    return user_config_dir() / WORKSPACE_RULES_FILE


def _key(workspace: Path) -> str:
    return os.fsdecode(Path(workspace).expanduser().resolve())


def workspace_rules(workspace: Path) -> dict[RuleEffect, tuple[PermissionRule, ...]]:
    """The user's rules for ``workspace`` by effect. Raises ``FileProblem`` for a broken
    file and :class:`Invalid` naming the bad entry."""
    path = workspace_rules_path()
    data = read_json_object(path) or {}
    entry = (data.get("workspaces") or {}).get(_key(workspace)) or {}
    if not isinstance(entry, dict):
        raise Invalid(f"an object of rule lists for {_key(workspace)}")
    found: dict[RuleEffect, tuple[PermissionRule, ...]] = {}
    source = f"{path} (for {_key(workspace)})"
    for effect in get_args(RuleEffect):
        checked = RuleList(effect=effect).check(entry.get(effect, []))
        assert isinstance(checked, tuple)
        found[effect] = tuple(replace(rule, source=source, scope="workspace") for rule in checked)
    return found


def save_rule(text: str, workspace: Path | None) -> str:
    """Add the allow rule ``text`` to the user's rules for ``workspace`` (None: to the user
    settings file, everywhere); returns where it went. Raises :class:`WriteProblem`."""
    if workspace is None:
        path = user_settings_path()
        data = _readable(path)
        permissions = data.setdefault("permissions", {})
        where = "permissions"
        source = str(path)
    else:
        path = workspace_rules_path()
        data = _readable(path)
        workspaces = data.setdefault("workspaces", {})
        if not isinstance(workspaces, dict):
            raise WriteProblem(f"not saved: {path}: workspaces is not an object")
        permissions = workspaces.setdefault(_key(workspace), {})
        where = f"workspaces.{_key(workspace)}"
        source = f"{path} (for {_key(workspace)})"
    if not isinstance(permissions, dict):
        raise WriteProblem(f"not saved: {path}: {where} is not an object")
    allow = permissions.setdefault("allow", [])
    if not isinstance(allow, list):
        raise WriteProblem(f"not saved: {path}: {where}.allow is not a list")
    if text not in allow:
        allow.append(text)
    replace_file(path, dump_json(data))
    return source


def _readable(path: Path) -> dict[str, Any]:
    try:
        return read_json_object(path) or {}
    except FileProblem as problem:
        raise WriteProblem(f"not saved: {problem}") from None
