"""Saving a few keys into a settings file without losing anything that is in it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from lull.settings.loader import load_settings
from lull.settings.writer import WriteProblem, save_settings

CHOICE = {
    "model.provider": "openai",
    "model.baseUrl": "http://127.0.0.1:8080/v1",
    "model.name": "qwen",
}


def test_a_new_file_is_created_with_the_keys(tmp_path: Path) -> None:
    path = tmp_path / "config" / "lull" / "settings.json"
    assert save_settings(CHOICE, path) == path
    assert json.loads(path.read_text()) == {
        "model": {"provider": "openai", "baseUrl": "http://127.0.0.1:8080/v1", "name": "qwen"}
    }


def test_keys_are_merged_with_what_is_there(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        '{"$schema": "./schema.json", "model": {"name": "old", "thinking": 4096},\n'
        ' "pricing": ["x=1/2"], "unknownKey": "kept as written", "note": "caf\\u00e9 \\ud800"}'
    )
    path.chmod(0o640)
    save_settings(CHOICE, path)
    data = json.loads(path.read_text())
    assert data["model"] == {
        "name": "qwen",
        "thinking": 4096,
        "provider": "openai",
        "baseUrl": "http://127.0.0.1:8080/v1",
    }
    assert data["$schema"] == "./schema.json" and data["pricing"] == ["x=1/2"]
    assert data["unknownKey"] == "kept as written"
    assert data["note"] == "café \ud800"  # a lone surrogate survives (escaped)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_file_lull_cannot_read_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    broken = '{"model": {"name": "mine",}}  // my comment\n'
    path.write_text(broken)
    with pytest.raises(WriteProblem) as problem:
        save_settings(CHOICE, path)
    assert str(problem.value).startswith(f"not saved: {path}:1:")
    assert path.read_text() == broken


def test_a_group_that_is_not_an_object_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "claude"}')
    with pytest.raises(WriteProblem, match="model is not an object"):
        save_settings(CHOICE, path)
    assert path.read_text() == '{"model": "claude"}'
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_an_unwritable_directory_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "config"
    blocker.write_text("a file where the directory should be")
    with pytest.raises(WriteProblem, match=r"^not saved: .*settings.json: cannot read \(Not a"):
        save_settings(CHOICE, blocker / "lull" / "settings.json")


def test_what_is_saved_is_what_lull_loads(tmp_path: Path, isolated_env: Path) -> None:
    from lull.settings.paths import user_settings_path

    save_settings(CHOICE, user_settings_path())
    loaded = load_settings(tmp_path, env={})
    assert loaded.diagnostics == []
    model = loaded.settings.model
    assert (model.provider, model.base_url, model.name) == (
        "openai",
        "http://127.0.0.1:8080/v1",
        "qwen",
    )
