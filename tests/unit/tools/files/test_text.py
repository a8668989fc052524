from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lull.tools.base import ToolError
from lull.tools.files.text import (
    atomic_write_text,
    count_lines,
    read_text_exact,
    write_text_or_fail,
)


def test_atomic_write_keeps_the_original_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o750)
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750


def test_new_files_get_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_failed_replace_leaves_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("original")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(ToolError, match=r"could not write keep\.txt: No space left on device"):
        write_text_or_fail(target, "new content", "keep.txt")
    assert target.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_unencodable_text_is_a_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("original")
    with pytest.raises(ToolError, match="not valid Unicode at character 3"):
        write_text_or_fail(target, "abc\ud800", "a.txt")
    assert target.read_text() == "original"


def test_read_text_exact_keeps_crlf(tmp_path: Path) -> None:
    target = tmp_path / "win.txt"
    target.write_bytes(b"a\r\nb\r\n")
    assert read_text_exact(target, "win.txt") == "a\r\nb\r\n"


def test_read_text_exact_refuses_binary_and_non_utf8(tmp_path: Path) -> None:
    (tmp_path / "bin").write_bytes(b"\x00\x01")
    (tmp_path / "latin").write_bytes(b"caf\xe9")
    with pytest.raises(ToolError, match="bin is a binary file"):
        read_text_exact(tmp_path / "bin", "bin")
    with pytest.raises(ToolError, match=r"latin is not valid UTF-8 \(byte 3\)"):
        read_text_exact(tmp_path / "latin", "latin")


def test_count_lines() -> None:
    assert count_lines("") == 0
    assert count_lines("a") == 1
    assert count_lines("a\n") == 1
    assert count_lines("a\nb") == 2
