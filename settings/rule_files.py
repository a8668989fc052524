"""The user's permission rules for one workspace, and saving an "allow always" rule.

"Allow always ... this workspace" is kept in ``workspace-permissions.json`` in the user's
config directory (keyed by the workspace's path), never in the repository, so a repository
cannot ship allow rules that look like the user's; "... everywhere" goes to the user
settings file's ``permissions.allow``. A host a sandboxed command may reach
("always" to the sandbox's network question) goes to the same two places, as
``sandbox.network.allowedDomains``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, get_args

from lull.model.permissions import PermissionRule, RuleEffect
from lull.settings.checks import Invalid
from lull.settings.fields import FIELDS
from lull.settings.jsonfile import FileProblem, read_json_object
from lull.settings.paths import user_config_dir, user_settings_path
from lull.settings.permission_rules import RuleList
from lull.settings.writer import WriteProblem, dump_json, replace_file

WORKSPACE_RULES_FILE = "workspace-permissions.json"
DOMAINS_KEY = "sandbox.network.allowedDomains"


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


def workspace_domains(workspace: Path) -> tuple[str, ...]:
    """The hosts the user let sandboxed commands reach in ``workspace`` ("always ... this
    workspace"). Raises ``FileProblem`` for a broken file and :class:`Invalid` for a bad
    list."""
    data = read_json_object(workspace_rules_path()) or {}
    entry = (data.get("workspaces") or {}).get(_key(workspace)) or {}
    if not isinstance(entry, dict):
        raise Invalid(f"an object of rule lists for {_key(workspace)}")
    domains: object = entry
    for key in DOMAINS_KEY.split("."):
        if not isinstance(domains, dict):
            raise Invalid(f"an object at sandbox.network for {_key(workspace)}")
        domains = domains.get(key, {} if key != "allowedDomains" else [])
    checked = FIELDS[DOMAINS_KEY].check.check(domains)
    assert isinstance(checked, tuple)
    return tuple(str(domain) for domain in checked)


def save_rule(text: str, workspace: Path | None) -> str:
    """Add the allow rule ``text`` to the user's rules for ``workspace`` (None: to the user
    settings file, everywhere); returns where it went. Raises :class:`WriteProblem`."""
    return _append(("permissions", "allow") if workspace is None else ("allow",), text, workspace)


def save_domain(host: str, workspace: Path | None) -> str:
    """Add ``host`` to the user's ``sandbox.network.allowedDomains`` for ``workspace`` (None:
    in the user settings file, everywhere); returns where it went. Raises
    :class:`WriteProblem`."""
    return _append(tuple(DOMAINS_KEY.split(".")), host, workspace)


def _append(keys: tuple[str, ...], text: str, workspace: Path | None) -> str:
    """Add ``text`` to the list at ``keys`` of the user settings file (``workspace`` None) or
    of the workspace's entry in :func:`workspace_rules_path`, keeping everything else."""
    if workspace is None:
        path = user_settings_path()
        data = _readable(path)
        node: object = data
        where: list[str] = []
        source = str(path)
    else:
        path = workspace_rules_path()
        data = _readable(path)
        node = data.setdefault("workspaces", {})
        where = ["workspaces"]
        if not isinstance(node, dict):
            raise WriteProblem(f"not saved: {path}: workspaces is not an object")
        source = f"{path} (for {_key(workspace)})"
        keys = (_key(workspace), *keys)
    *groups, leaf = keys
    for group in groups:
        assert isinstance(node, dict)
        node = node.setdefault(group, {})
        where.append(group)
        if not isinstance(node, dict):
            raise WriteProblem(f"not saved: {path}: {'.'.join(where)} is not an object")
    assert isinstance(node, dict)
    entries = node.setdefault(leaf, [])
    if not isinstance(entries, list):
        raise WriteProblem(f"not saved: {path}: {'.'.join((*where, leaf))} is not a list")
    if text not in entries:
        entries.append(text)
    replace_file(path, dump_json(data))
    return source


def _readable(path: Path) -> dict[str, Any]:
    try:
        return read_json_object(path) or {}
    except FileProblem as problem:
        raise WriteProblem(f"not saved: {problem}") from None
