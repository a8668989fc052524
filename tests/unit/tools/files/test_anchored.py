"""Writing relative to a directory held open, never through a symlink swapped in later."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lull.tools.base import ToolError
from lull.tools.files.anchored import AnchoredDir
from lull.tools.files.pending_writes import TEMP_SUFFIX


def test_creates_missing_directories_and_writes(tmp_path: Path) -> None:
    with AnchoredDir(tmp_path, tmp_path / "a/b", "a/b/f.txt", create=True) as directory:
        directory.replace("f.txt", b"data")
    assert (tmp_path / "a/b/f.txt").read_bytes() == b"data"
    assert not list(tmp_path.rglob(f"*{TEMP_SUFFIX}"))


def test_a_symlinked_directory_on_the_way_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "sub").symlink_to(outside)
    with pytest.raises(ToolError, match=r"sub/f\.txt: .*/ws/sub changed while it was being"):
        AnchoredDir(root, root / "sub", "sub/f.txt")
    assert list(outside.iterdir()) == []


def test_a_directory_moved_away_after_opening_is_refused_before_the_rename(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    with AnchoredDir(root, root / "sub", "sub/f.txt") as directory:
        (root / "sub").rename(tmp_path / "moved")
        with pytest.raises(ToolError, match="changed while it was being written"):
            directory.replace("f.txt", b"x")
    assert list((tmp_path / "moved").iterdir()) == []


def test_a_symlink_in_place_of_the_file_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("keep")
    (tmp_path / "link.txt").symlink_to(secret)
    with AnchoredDir(tmp_path, tmp_path, "link.txt") as directory:
        with pytest.raises(ToolError, match="changed while it was being written"):
            directory.read_bytes("link.txt")
        with pytest.raises(ToolError, match="changed while it was being written"):
            directory.replace("link.txt", b"new")
    assert secret.read_text() == "keep"


def test_mode_is_kept_and_names_that_are_not_utf8_survive(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.sh")
    (tmp_path / name).write_bytes(b"old")
    (tmp_path / name).chmod(0o750)
    with AnchoredDir(tmp_path, tmp_path, name) as directory:
        directory.replace(name, b"new")
        assert directory.read_bytes(name) == b"new"
    assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o750
    assert os.listdir(os.fsencode(tmp_path)) == [b"caf\xe9.sh"]
