"""@path mentions: the file's content goes with the message, the same in every front end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lull.tools.media.mentions import MAX_ATTACH_BYTES, expand_mentions, mentioned_paths
from tests.images import png_bytes


def test_a_mentioned_file_is_appended_in_a_fence(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    expanded = expand_mentions("fix the bug in @src/calc.py please", tmp_path)
    assert expanded.prompt == (
        "fix the bug in @src/calc.py please\n\n"
        "Contents of src/calc.py:\n```py\ndef add(a, b):\n    return a - b\n```"
    )
    assert expanded.notes == ("attached src/calc.py (32 bytes)",)
    assert expanded.attached == ("src/calc.py",)


def test_trailing_punctuation_is_dropped_and_a_file_goes_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    expansion = expand_mentions("look at @a.py, please", tmp_path)
    assert expansion.attached == ("a.py",)
    assert expansion.prompt == "look at @a.py, please\n\nContents of a.py:\n```py\nx = 1\n```"


def test_emails_repeats_and_trailing_punctuation(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("A")
    text = "mail me@example.com about @a.md, then @a.md again"
    assert mentioned_paths(text) == ["a.md,", "a.md"]
    expanded = expand_mentions(text, tmp_path)
    assert expanded.attached == ("a.md",)
    assert expanded.prompt.count("Contents of a.md:") == 1


def test_missing_files_directories_and_binaries_are_not_attached(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    expanded = expand_mentions("see @nope.txt @pkg @blob.bin", tmp_path)
    assert expanded.prompt == "see @nope.txt @pkg @blob.bin"
    assert expanded.notes == (
        "@nope.txt: no such file; sent as plain text",
        "@pkg: is a directory; only files are attached",
        "@blob.bin: binary file; not attached",
    )


def test_missing_binary_and_directory_mentions_are_reported(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "src").mkdir()
    expansion = expand_mentions("@nope @blob.bin @src", tmp_path)
    assert expansion.prompt == "@nope @blob.bin @src"
    assert len(expansion.problems) == 3
    assert "no such file" in expansion.problems[0]
    assert "binary" in expansion.problems[1]
    assert "directory" in expansion.problems[2]


def test_a_large_file_is_truncated_with_a_marker(tmp_path: Path) -> None:
    (tmp_path / "big.log").write_text("x" * (MAX_ATTACH_BYTES + 500))
    expanded = expand_mentions("@big.log", tmp_path)
    size = MAX_ATTACH_BYTES + 500
    assert f"[truncated: first {MAX_ATTACH_BYTES:,} of {size:,} bytes" in expanded.prompt
    assert expanded.notes[0].startswith("attached the first")


def test_backticks_in_the_file_get_a_longer_fence(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("```sh\nmake\n```\n")
    expanded = expand_mentions("@README.md", tmp_path)
    assert "````md\n```sh\nmake\n```\n````" in expanded.prompt


def test_absolute_paths_work(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("far away")
    expanded = expand_mentions(f"read @{target}", tmp_path / "missing-workspace")
    assert "far away" in expanded.prompt


def test_an_image_mention_attaches_the_picture(tmp_path: Path) -> None:
    from tests.images import png_bytes

    (tmp_path / "shot.png").write_bytes(png_bytes(30, 20))
    expanded = expand_mentions("what is wrong in @shot.png?", tmp_path)
    assert expanded.prompt == "what is wrong in @shot.png?"  # no text block for an image
    assert [i.media_type for i in expanded.images] == ["image/png"]
    assert expanded.notes[0].startswith("attached image shot.png (image/png, ")


def test_a_pasted_image_path_attaches_the_picture(tmp_path: Path) -> None:
    from tests.images import jpeg_bytes

    folder = tmp_path / "My Pictures"
    folder.mkdir()
    (folder / "Screen Shot.jpg").write_bytes(jpeg_bytes())
    pasted = str(folder / "Screen Shot.jpg").replace(" ", "\\ ")
    expanded = expand_mentions(f"{pasted} why is the button grey?", tmp_path)
    assert [i.media_type for i in expanded.images] == ["image/jpeg"]
    quoted = expand_mentions(f"'{folder / 'Screen Shot.jpg'}'", tmp_path)
    assert len(quoted.images) == 1
    assert expand_mentions("/no/such/file.png please", tmp_path).images == ()


def test_a_model_without_image_input_gets_a_clear_note(tmp_path: Path) -> None:
    from tests.images import png_bytes

    (tmp_path / "shot.png").write_bytes(png_bytes())
    expanded = expand_mentions("see @shot.png", tmp_path, "deepseek-chat does not accept images")
    assert expanded.images == ()
    assert expanded.problems == (
        "shot.png: image not attached: deepseek-chat does not accept images",
    )


def _expand_in_child(text: str, workspace: Path) -> dict[str, Any]:
    """``expand_mentions(text, workspace)`` in a child process with 1 GB of memory and 20 s:
    a read of /dev/zero or a FIFO that went wrong fails the test instead of taking the
    machine or the test run down with it."""
    code = (
        "import json, resource, sys; from pathlib import Path; "
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "from lull.tools.media.mentions import expand_mentions; "
        "e = expand_mentions(sys.argv[1], Path(sys.argv[2])); "
        "print(json.dumps({'notes': e.notes, 'attached': e.attached, "
        "'images': len(e.images), 'prompt': e.prompt}))"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, text, str(workspace)],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"expanding {text!r} hung (killed after 20 s)")
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("name", ["z.png", "z.txt", "z"])
def test_a_link_to_dev_zero_is_refused_without_reading_it(tmp_path: Path, name: str) -> None:
    (tmp_path / name).symlink_to("/dev/zero")
    expanded = _expand_in_child(f"look at @{name}", tmp_path)
    assert expanded["attached"] == [] and expanded["images"] == 0
    assert expanded["prompt"] == f"look at @{name}"
    assert expanded["notes"] == [
        f"@{name}: not attached: it leads to /dev/zero, a character device; only regular "
        "files are attached"
    ]


@pytest.mark.parametrize("name", ["shot.png", "notes.txt", "pipe"])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    expanded = _expand_in_child(f"see @{name}", tmp_path)
    assert expanded["attached"] == [] and expanded["images"] == 0
    assert expanded["notes"] == [
        f"@{name}: not attached: it is a FIFO (named pipe); only regular files are attached"
    ]


def test_an_image_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "huge.png"
    with big.open("wb") as out:  # sparse: its size says 60 MB, nothing is written
        out.truncate(60_000_000)
    expanded = _expand_in_child("@huge.png", tmp_path)
    assert expanded["images"] == 0
    assert expanded["notes"] == [
        "huge.png: image not attached: 60.0 MB is too large to send (lull reads images up to "
        "50.0 MB)"
    ]


def test_confined_text_attaches_only_workspace_files_unless_typed(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "a.md").write_text("inside")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    picture = tmp_path / "holiday.png"
    picture.write_bytes(png_bytes())
    other = tmp_path / "other.txt"
    other.write_text("outside too")
    (workspace / "link.md").symlink_to(other)
    text = f"@docs/a.md @link.md @{secret} {picture}"
    free = expand_mentions(text, workspace)
    assert free.attached == ("docs/a.md", "link.md", str(secret), str(picture))
    confined = expand_mentions(text, workspace, confined=True)
    assert confined.attached == ("docs/a.md",) and confined.images == ()
    assert "outside" not in confined.prompt
    assert confined.problems == tuple(
        f"@{name}: not attached: it leads to {target}, outside the workspace {workspace}; a "
        "project file may attach only files inside it until you /trust this workspace"
        for name, target in (("link.md", other), (str(secret), secret), (str(picture), picture))
    )
    typed = expand_mentions(text, workspace, confined=True, typed=(str(secret),))
    assert typed.attached == ("docs/a.md", str(secret))
