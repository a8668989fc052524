"""Fixtures for settings tests: private XDG dirs, a workspace, and file writers."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lull.settings import LoadedSettings, load_settings


@dataclass
class Home:
    """A throwaway user config dir and workspace, with helpers to write and load."""

    user_file: Path
    workspace: Path

    @property
    def project_file(self) -> Path:
        """The project settings file inside the workspace."""
        return self.workspace / ".lull" / "settings.json"

    def write_user(self, content: Any) -> Path:
        """Write the user file (a str is written verbatim, anything else as JSON)."""
        return _write(self.user_file, content)

    def write_project(self, content: Any) -> Path:
        """Write the project file (a str is written verbatim, anything else as JSON)."""
        return _write(self.project_file, content)

    def load(
        self, env: Mapping[str, str] | None = None, cli: Mapping[str, Any] | None = None
    ) -> LoadedSettings:
        """Load settings for the workspace with an explicit (default: empty) environment."""
        return load_settings(self.workspace, env={} if env is None else env, cli=cli)


def _write(path: Path, content: Any) -> Path:
    """Write ``content`` to ``path``, creating parent directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """Point XDG dirs at tmp_path, clear LULL_* variables, and make a workspace."""
    for name in ("CONFIG", "DATA", "STATE"):
        monkeypatch.setenv(f"XDG_{name}_HOME", str(tmp_path / name.lower()))
    for name in list(os.environ):
        if name.startswith("LULL_"):
            monkeypatch.delenv(name)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Home(tmp_path / "config" / "lull" / "settings.json", workspace)
