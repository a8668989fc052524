"""Which workspaces the user trusts.

A repository is untrusted: settings in it that run code or widen access (project MCP
servers, project hooks, a project's ``allow`` rules) apply only after the user trusts the
workspace once. The list of trusted directories lives in the user's config directory
(``trusted-workspaces.json``), never in a repository; trusting a directory trusts what is
under it. ``/trust`` grants it from the front ends.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from lull.settings.jsonfile import FileProblem, read_json_object
from lull.settings.paths import user_config_dir
from lull.settings.writer import WriteProblem, dump_json, replace_file

TRUST_FILE = "trusted-workspaces.json"


def trust_path() -> Path:
    """The file that lists the trusted workspaces."""
    return user_config_dir() / TRUST_FILE


def _key(workspace: Path) -> str:
    return os.fsdecode(Path(workspace).expanduser().resolve())


def _entries() -> dict[str, Any]:
    """The trusted directories (path -> when); an unreadable file trusts nothing."""
    try:
        data = read_json_object(trust_path()) or {}
    except FileProblem:
        return {}
    trusted = data.get("trusted")
    return trusted if isinstance(trusted, dict) else {}


def trusted_root(workspace: Path) -> Path | None:
    """The trusted directory ``workspace`` is in (itself or a parent), or None."""
    key = Path(_key(workspace))
    for entry in _entries():
        root = Path(entry)
        if key == root or root in key.parents:
            return root
    return None


def is_trusted(workspace: Path) -> bool:
    """Whether the user trusts ``workspace`` (or a directory above it)."""
    return trusted_root(workspace) is not None


def trust(workspace: Path) -> Path:
    """Trust ``workspace`` from now on; returns the file that records it. Raises
    :class:`~lull.settings.writer.WriteProblem` when it cannot be written."""
    path = trust_path()
    try:
        data = read_json_object(path) or {}
    except FileProblem as problem:
        raise WriteProblem(f"not saved: {problem}") from None
    trusted = data.get("trusted")
    if not isinstance(trusted, dict):
        trusted = {}
    trusted[_key(workspace)] = {"at": time.time()}
    data["trusted"] = trusted
    replace_file(path, dump_json(data))
    return path


def distrust(workspace: Path) -> bool:
    """Stop trusting exactly ``workspace``; False when it was not in the list."""
    path = trust_path()
    try:
        data = read_json_object(path) or {}
    except FileProblem:
        return False
    trusted = data.get("trusted")
    if not isinstance(trusted, dict) or _key(workspace) not in trusted:
        return False
    del trusted[_key(workspace)]
    replace_file(path, dump_json(data))
    return True


class TrustCheck:
    """Whether one workspace is trusted, read once and again after :meth:`refresh` (``/trust``
    and ``/trust revoke`` call it), so the engine can ask before every tool call cheaply."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._trusted = is_trusted(workspace)

    def __call__(self) -> bool:
        """Whether the workspace is trusted."""
        return self._trusted

    def refresh(self) -> bool:
        """Read the trusted list again; returns the new answer."""
        self._trusted = is_trusted(self.workspace)
        return self._trusted
