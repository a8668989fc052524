"""Where lull's files live, honouring XDG variables read at call time."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lull.settings import paths

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="XDG dirs are a Linux rule")


def test_xdg_config_home_is_honoured_at_call_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "a"))
    assert paths.user_settings_path() == tmp_path / "a" / "lull" / "settings.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "b"))
    assert paths.user_config_dir() == tmp_path / "b" / "lull"


def test_data_and_state_dirs_follow_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert paths.data_dir() == tmp_path / "data" / "lull"
    assert paths.sessions_dir() == tmp_path / "data" / "lull" / "sessions"
    assert paths.tool_output_dir() == tmp_path / "data" / "lull" / "tool-output"
    assert paths.state_dir() == tmp_path / "state" / "lull"
    assert paths.log_path() == tmp_path / "state" / "lull" / "debug.log"
    assert paths.history_path() == tmp_path / "state" / "lull" / "history"


def test_defaults_without_xdg_are_under_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.user_settings_path() == tmp_path / ".config" / "lull" / "settings.json"
    assert paths.sessions_dir() == tmp_path / ".local" / "share" / "lull" / "sessions"
    assert paths.log_path() == tmp_path / ".local" / "state" / "lull" / "debug.log"


def test_project_settings_path_is_inside_the_workspace(tmp_path: Path) -> None:
    assert paths.project_settings_path(tmp_path) == tmp_path / ".lull" / "settings.json"


def test_nothing_is_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    paths.sessions_dir()
    assert not (tmp_path / "data").exists()
