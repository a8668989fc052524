from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from lull.model.permissions import PermissionRule
from lull.tools.base import ToolContext
from lull.tools.permissions.rules import RuleBook
from tests.unit.tools.helpers import Call


def touch(path: Path, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    os.utime(path, (mtime, mtime))


@pytest.fixture
def tree(workspace: Path) -> Path:
    touch(workspace / "old.py", 1_000)
    touch(workspace / "pkg/mid.py", 2_000)
    touch(workspace / "pkg/deep/new.py", 3_000)
    touch(workspace / "pkg/notes.md", 4_000)
    touch(workspace / "node_modules/dep.py", 5_000)
    touch(workspace / ".git/hook.py", 5_000)
    return workspace


async def test_double_star_matches_at_any_depth_newest_first(call: Call, tree: Path) -> None:
    out = await call("glob", pattern="**/*.py")
    assert out.content.splitlines() == ["pkg/deep/new.py", "pkg/mid.py", "old.py"]


async def test_single_star_stays_in_one_directory(call: Call, tree: Path) -> None:
    assert (await call("glob", pattern="*.py")).content == "old.py"
    assert (await call("glob", pattern="pkg/*")).content.splitlines() == [
        "pkg/notes.md",
        "pkg/mid.py",
    ]


async def test_path_sets_the_search_root(call: Call, tree: Path) -> None:
    out = await call("glob", pattern="**/*.py", path="pkg")
    assert out.content.splitlines() == ["pkg/deep/new.py", "pkg/mid.py"]


async def test_skipped_dirs_are_searched_only_when_named(call: Call, tree: Path) -> None:
    out = await call("glob", pattern="node_modules/*.py")
    assert out.content == "node_modules/dep.py"


async def test_no_match_and_bad_input(call: Call, tree: Path) -> None:
    none = await call("glob", pattern="**/*.rs")
    assert not none.is_error and none.content == "No files match '**/*.rs' in ."
    absolute = await call("glob", pattern="/etc/*")
    assert absolute.is_error and "must be relative" in absolute.content
    not_dir = await call("glob", pattern="*", path="old.py")
    assert not_dir.is_error and not_dir.content == "glob: old.py is not a directory"


async def test_results_are_capped(call: Call, workspace: Path) -> None:
    for i in range(205):
        (workspace / f"f{i:03}.txt").write_text("")
    out = await call("glob", pattern="*.txt")
    lines = out.content.splitlines()
    assert len(lines) == 201
    assert lines[-1] == "[... 5 more files not shown; narrow the pattern]"


async def test_files_a_read_rule_denies_are_left_out_and_said(
    call: Call, workspace: Path, ctx: ToolContext
) -> None:

    (workspace / "secret.txt").write_text("x")
    (workspace / "notes.txt").write_text("y")
    book = RuleBook([PermissionRule("deny", "Read(secret.txt)", "/u/s.json")])
    guarded = dataclasses.replace(ctx, read_guard=book.read_guard(workspace))
    out = await call("glob", guarded, pattern="*.txt")
    assert out.content.splitlines() == [
        "notes.txt",
        '[1 matching file left out: the user\'s deny rule "Read(secret.txt)" from /u/s.json '
        "keeps tools from reading them]",
    ]
