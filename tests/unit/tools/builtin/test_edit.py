from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.tools.helpers import Call

SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"


async def test_replaces_a_unique_string_and_shows_a_diff(call: Call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    out = await call(
        "edit",
        path="m.py",
        old_string="def f():\n    return 1",
        new_string="def f():\n    return 2",
    )
    assert not out.is_error
    assert out.content.startswith("Edited m.py: replaced 1 occurrence")
    assert "--- a/m.py\n+++ b/m.py\n" in out.content
    assert "-    return 1\n+    return 2\n" in out.content
    assert (workspace / "m.py").read_text() == SOURCE.replace("return 1", "return 2", 1)


async def test_missing_old_string_is_reported(call: Call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    out = await call("edit", path="m.py", old_string="return 3", new_string="return 4")
    assert out.is_error
    assert out.content.startswith("old_string not found in m.py")
    assert (workspace / "m.py").read_text() == SOURCE


async def test_ambiguous_old_string_needs_replace_all(call: Call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    out = await call("edit", path="m.py", old_string="return 1", new_string="return 2")
    assert out.is_error
    assert "occurs 2 times in m.py" in out.content
    assert "replace_all" in out.content and "more surrounding context" in out.content
    assert (workspace / "m.py").read_text() == SOURCE


async def test_replace_all_replaces_every_occurrence(call: Call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    out = await call(
        "edit", path="m.py", old_string="return 1", new_string="return 2", replace_all=True
    )
    assert out.content.startswith("Edited m.py: replaced 2 occurrences")
    assert (workspace / "m.py").read_text().count("return 2") == 2


async def test_identical_strings_are_an_error(call: Call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    out = await call("edit", path="m.py", old_string="f", new_string="f")
    assert out.is_error and "identical" in out.content


async def test_empty_old_string_creates_a_new_file(call: Call, workspace: Path) -> None:
    out = await call("edit", path="new/file.txt", old_string="", new_string="hello\n")
    assert not out.is_error and out.content.startswith("Created new/file.txt")
    assert "+hello" in out.content
    assert (workspace / "new/file.txt").read_text() == "hello\n"


async def test_empty_old_string_on_existing_file_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "m.py").write_text(SOURCE)
    out = await call("edit", path="m.py", old_string="", new_string="x")
    assert out.is_error and "already exists" in out.content
    assert (workspace / "m.py").read_text() == SOURCE


async def test_missing_file_is_reported(call: Call) -> None:
    out = await call("edit", path="ghost.py", old_string="a", new_string="b")
    assert out.is_error and out.content == "file not found: ghost.py"


async def test_crlf_file_matches_lf_old_string_and_keeps_crlf(call: Call, workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = await call("edit", path="w.txt", old_string="one\ntwo", new_string="1\n2")
    assert not out.is_error
    assert (workspace / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_binary_file_is_refused(call: Call, workspace: Path) -> None:
    (workspace / "b.bin").write_bytes(b"ab\x00cd")
    out = await call("edit", path="b.bin", old_string="ab", new_string="xy")
    assert out.is_error and "binary" in out.content


async def test_failed_write_never_leaves_a_half_written_file(
    call: Call, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "m.py").write_text(SOURCE)

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", crash)
    out = await call("edit", path="m.py", old_string="def g", new_string="def h")
    assert out.is_error and out.content == "could not write m.py: Input/output error"
    assert (workspace / "m.py").read_text() == SOURCE
    assert os.listdir(workspace) == ["m.py"]


async def test_long_diffs_are_shortened(call: Call, workspace: Path) -> None:
    (workspace / "big.txt").write_text("a\n" * 200)
    out = await call("edit", path="big.txt", old_string="a\n" * 200, new_string="b\n" * 200)
    assert "more diff lines" in out.content
    assert out.content.count("\n") < 70


@pytest.mark.parametrize("name", ["a\ud800b.txt", "a\udc80b.txt"])
async def test_a_lone_surrogate_in_the_path_is_a_clear_error(
    call: Call, workspace: Path, name: str
) -> None:
    for old in ("x", ""):  # an edit of a file, and one that creates it
        out = await call("edit", path=name, old_string=old, new_string="y")
        assert out.is_error
        assert out.content.startswith(f"path {name!r} holds a lone surrogate")
    assert os.listdir(workspace) == []
