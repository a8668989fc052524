from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.tools.helpers import Call


async def test_creates_file_and_parent_dirs(call: Call, workspace: Path) -> None:
    out = await call("write_file", path="src/pkg/mod.py", content="a\nb\n")
    assert not out.is_error
    assert out.content.startswith("Created src/pkg/mod.py (2 lines")
    assert (workspace / "src/pkg/mod.py").read_text() == "a\nb\n"


async def test_overwrite_is_reported_and_keeps_mode(call: Call, workspace: Path) -> None:
    target = workspace / "run.sh"
    target.write_text("old\n")
    target.chmod(0o755)
    out = await call("write_file", path="run.sh", content="new\n")
    assert out.content.startswith("Overwrote run.sh (1 line,")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o755


async def test_content_is_written_byte_for_byte(call: Call, workspace: Path) -> None:
    await call("write_file", path="win.txt", content="a\r\nb")
    assert (workspace / "win.txt").read_bytes() == b"a\r\nb"


async def test_directory_path_is_an_error_and_nothing_changes(call: Call, workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    out = await call("write_file", path="pkg", content="x")
    assert out.is_error and out.content == "pkg is a directory; give a file path to write"
    assert (workspace / "pkg").is_dir()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
async def test_unwritable_directory_leaves_original_intact(call: Call, workspace: Path) -> None:
    locked = workspace / "locked"
    locked.mkdir()
    (locked / "f.txt").write_text("original")
    locked.chmod(0o555)
    try:
        out = await call("write_file", path="locked/f.txt", content="new")
    finally:
        locked.chmod(0o755)
    assert out.is_error and "could not write locked/f.txt" in out.content
    assert (locked / "f.txt").read_text() == "original"
    assert os.listdir(locked) == ["f.txt"]


async def test_failed_write_leaves_original_intact(
    call: Call, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = workspace / "f.txt"
    target.write_text("original")

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    out = await call("write_file", path="f.txt", content="new")
    assert out.is_error
    assert out.content == "could not write f.txt: No space left on device"
    assert target.read_text() == "original"
    assert os.listdir(workspace) == ["f.txt"]


async def test_outside_workspace_is_refused(call: Call, tmp_path: Path) -> None:
    out = await call("write_file", path=str(tmp_path / "x.txt"), content="x")
    assert out.is_error and "outside the workspace" in out.content
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("name", ["a\ud800b.txt", "a\udc80b.txt"])
async def test_a_lone_surrogate_in_the_path_is_a_clear_error(
    call: Call, workspace: Path, name: str
) -> None:
    out = await call("write_file", path=name, content="x")
    assert out.is_error
    assert out.content.startswith(f"path {name!r} holds a lone surrogate")
    assert os.listdir(workspace) == []
