from __future__ import annotations

import dataclasses
from pathlib import Path

from lull.model.permissions import PermissionRule
from lull.tools.base import ToolContext
from lull.tools.permissions.rules import RuleBook
from tests.unit.tools.helpers import Call


async def test_lists_sorted_entries_with_slash_for_dirs(call: Call, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "b.txt").write_text("")
    (workspace / "A.md").write_text("")
    (workspace / "src" / "inner.py").write_text("")
    out = await call("list_directory")
    assert out.content.splitlines() == ["./ (3 entries)", "A.md", "b.txt", "src/"]
    sub = await call("list_directory", path="src")
    assert sub.content.splitlines() == ["src/ (1 entry)", "inner.py"]


async def test_empty_missing_and_file(call: Call, workspace: Path) -> None:
    (workspace / "empty").mkdir()
    (workspace / "f.txt").write_text("")
    assert (await call("list_directory", path="empty")).content == "empty/ is empty"
    missing = await call("list_directory", path="nope")
    assert missing.is_error and missing.content == "list_directory: directory not found: nope"
    a_file = await call("list_directory", path="f.txt")
    assert a_file.is_error and "f.txt is a file, not a directory" in a_file.content


async def test_entries_are_capped(call: Call, workspace: Path) -> None:
    for i in range(510):
        (workspace / f"f{i:03}").write_text("")
    lines = (await call("list_directory")).content.splitlines()
    assert lines[0] == "./ (510 entries)"
    assert len(lines) == 502
    assert lines[-1] == "[... 10 more entries not shown]"


async def test_outside_workspace_is_refused(call: Call, tmp_path: Path) -> None:
    out = await call("list_directory", path=str(tmp_path))
    assert out.is_error and "outside the workspace" in out.content


async def test_a_file_a_read_rule_denies_is_listed_marked(
    call: Call, workspace: Path, ctx: ToolContext
) -> None:

    (workspace / ".env").write_text("x")
    (workspace / "a.txt").write_text("y")
    book = RuleBook([PermissionRule("deny", "Read(.env)", "/u/s.json")])
    guarded = dataclasses.replace(ctx, read_guard=book.read_guard(workspace))
    out = await call("list_directory", guarded)
    assert out.content.splitlines()[1:] == [
        '.env  [not readable: the user\'s deny rule "Read(.env)" from /u/s.json]',
        "a.txt",
    ]
