from __future__ import annotations

import dataclasses
from pathlib import Path

from lull.tools.base import ToolContext
from tests.unit.tools.helpers import Call


async def test_lines_are_numbered_like_cat_n(call: Call, workspace: Path) -> None:
    (workspace / "a.py").write_text("first\nsecond\n")
    out = await call("read_file", path="a.py")
    assert not out.is_error
    assert out.content == "     1\tfirst\n     2\tsecond\n"


async def test_offset_and_limit_select_a_window_and_say_how_to_go_on(
    call: Call, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    out = await call("read_file", path="a.txt", offset=3, limit=2)
    assert out.content.startswith("     3\tl3\n     4\tl4\n")
    assert "showing lines 3-4 of 10" in out.content
    assert "offset=5" in out.content


async def test_default_cap_is_2000_lines(call: Call, workspace: Path) -> None:
    (workspace / "big.txt").write_text("x\n" * 2500)
    out = await call("read_file", path="big.txt")
    assert out.content.count("\tx\n") == 2000
    assert "showing lines 1-2000 of 2500" in out.content
    assert "offset=2001" in out.content


async def test_character_budget_caps_output(call: Call, ctx: ToolContext, workspace: Path) -> None:
    (workspace / "wide.txt").write_text(("y" * 100 + "\n") * 100)
    out = await call("read_file", dataclasses.replace(ctx, max_output_chars=1000), path="wide.txt")
    assert len(out.content) < 1300
    assert "output size limit" in out.content
    assert "call read_file with offset=" in out.content


async def test_very_long_lines_are_shortened(call: Call, workspace: Path) -> None:
    (workspace / "min.js").write_text("z" * 5000)
    out = await call("read_file", path="min.js")
    assert "line cut at 2000 characters" in out.content
    assert len(out.content) < 2100


async def test_binary_files_are_refused(call: Call, workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"\x7fELF\x00\x00\x00")
    out = await call("read_file", path="blob.bin")
    assert out.is_error
    assert "blob.bin is a binary file" in out.content
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    damaged = await call("read_file", path="img.png")
    assert damaged.is_error
    assert "img.png is an image that cannot be sent: the image cannot be decoded" in (
        damaged.content
    )


async def test_errors_name_the_problem(call: Call, workspace: Path) -> None:
    (workspace / "d").mkdir()
    (workspace / "short.txt").write_text("one\n")
    missing = await call("read_file", path="nope.txt")
    assert missing.is_error and missing.content == "file not found: nope.txt"
    directory = await call("read_file", path="d")
    assert "d is a directory" in directory.content
    past = await call("read_file", path="short.txt", offset=5)
    assert "offset 5 is past the end of short.txt (1 lines)" in past.content
    bad = await call("read_file", path="short.txt", offset=0)
    assert "offset must be 1 or more (got 0)" in bad.content


async def test_empty_file_says_so(call: Call, workspace: Path) -> None:
    (workspace / "empty").write_text("")
    assert (await call("read_file", path="empty")).content == "(empty is empty)"


async def test_an_image_comes_back_as_the_picture(tmp_path: Path) -> None:
    from lull.tools.base import ToolContext
    from lull.tools.builtin.read_file import ReadFileTool
    from tests.images import png_bytes

    (tmp_path / "diagram.png").write_bytes(png_bytes(12, 9))
    ctx = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    output = await ReadFileTool().run({"path": "diagram.png"}, ctx)
    assert output.content.startswith("[image diagram.png: image/png, ")
    assert [i.media_type for i in output.images] == ["image/png"]
