from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from lull.tools.base import ToolContext, ToolError
from lull.tools.files.paths import display_path, resolve_in_workspace


def test_relative_path_is_resolved_against_the_workspace(ctx: ToolContext, workspace: Path) -> None:
    assert resolve_in_workspace("src/a.py", ctx) == workspace.resolve() / "src" / "a.py"


def test_absolute_path_inside_the_workspace_is_allowed(ctx: ToolContext, workspace: Path) -> None:
    target = workspace / "a.txt"
    assert resolve_in_workspace(str(target), ctx) == target.resolve()


def test_path_outside_the_workspace_is_refused_with_the_fix(
    ctx: ToolContext, tmp_path: Path
) -> None:
    with pytest.raises(ToolError) as info:
        resolve_in_workspace(str(tmp_path / "elsewhere.txt"), ctx)
    message = str(info.value)
    assert "is outside the workspace" in message
    assert "tools.allowedPaths in settings.json" in message


def test_dotdot_escape_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace("../../etc/passwd", ctx)


def test_symlink_escape_is_refused(ctx: ToolContext, workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (workspace / "link.txt").symlink_to(secret)
    (workspace / "linkdir").symlink_to(tmp_path)
    with pytest.raises(ToolError, match=r"resolves to .*secret\.txt.* is outside the workspace"):
        resolve_in_workspace("link.txt", ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace("linkdir/secret.txt", ctx)


def test_symlink_within_the_workspace_is_fine(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "real.txt").write_text("x")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    assert resolve_in_workspace("alias.txt", ctx) == (workspace / "real.txt").resolve()


def test_allowed_paths_extend_the_workspace(ctx: ToolContext, tmp_path: Path) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    allowed = dataclasses.replace(ctx, allowed_paths=(extra,))
    assert resolve_in_workspace(str(extra / "notes.md"), allowed) == extra.resolve() / "notes.md"


def test_empty_path_is_an_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="path is empty"):
        resolve_in_workspace("  ", ctx)


def test_display_path_is_workspace_relative(
    ctx: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    assert display_path(workspace.resolve() / "a" / "b.py", ctx) == "a/b.py"
    assert display_path(workspace.resolve(), ctx) == "."
    assert display_path(tmp_path / "x", ctx) == str(tmp_path / "x")


def test_saved_full_outputs_are_readable_but_not_writable(ctx: ToolContext) -> None:
    ctx.output_dir.mkdir(parents=True, exist_ok=True)
    saved = ctx.output_dir / "call_1.txt"
    saved.write_text("full text")
    assert resolve_in_workspace(str(saved), ctx, reading=True) == saved.resolve()
    with pytest.raises(ToolError, match="outside the workspace"):
        resolve_in_workspace(str(saved), ctx)


def test_a_name_sent_with_u_fffd_finds_the_file_with_the_undecodable_byte(
    ctx: ToolContext, workspace: Path
) -> None:
    directory = workspace / os.fsdecode(b"d\xe9j\xe0")
    directory.mkdir()
    (directory / os.fsdecode(b"caf\xe9.txt")).write_text("x")

    found = resolve_in_workspace("d\ufffdj\ufffd/caf\ufffd.txt", ctx)

    assert os.fsencode(found) == os.fsencode(workspace.resolve()) + b"/d\xe9j\xe0/caf\xe9.txt"


def test_an_ambiguous_u_fffd_name_is_left_as_written(ctx: ToolContext, workspace: Path) -> None:
    (workspace / os.fsdecode(b"a\xe9")).write_text("1")
    (workspace / os.fsdecode(b"a\xe8")).write_text("2")

    assert resolve_in_workspace("a\ufffd", ctx) == workspace.resolve() / "a\ufffd"


@pytest.mark.parametrize("name", ["a\ud800b.txt", "a\udc80b.txt", "d\udfff/x.txt"])
def test_a_lone_surrogate_in_a_path_is_refused_naming_it(ctx: ToolContext, name: str) -> None:
    with pytest.raises(ToolError) as info:
        resolve_in_workspace(name, ctx)
    message = str(info.value)
    assert message.startswith(f"path {name!r} holds a lone surrogate (U+")
    assert "U+FFFD" in message  # how names lull could not decode are shown
    message.encode("utf-8")  # the message itself is printable
