from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from lull.model.permissions import PermissionRule
from lull.tools.base import ToolContext
from lull.tools.builtin.grep_search import GrepSearchTool
from lull.tools.permissions.rules import RuleBook
from lull.tools.search.engines import parse_rg_json, python_search
from lull.tools.search.run import run_search
from tests.unit.tools.helpers import Call


@pytest.fixture
def tree(workspace: Path) -> Path:
    (workspace / "src").mkdir()
    (workspace / "src/app.py").write_text("import os\n\ndef handler():\n    return os.sep\n")
    (workspace / "src/util.ts").write_text("export function handler() {}\n")
    (workspace / "README.md").write_text("call handler() here\n")
    for skipped in (".git", "node_modules", ".venv", "__pycache__"):
        (workspace / skipped).mkdir()
        (workspace / skipped / "x.py").write_text("def handler(): pass\n")
    (workspace / "blob.bin").write_bytes(b"handler\x00\x01")
    return workspace


async def test_lists_matches_as_path_line_text(call: Call, tree: Path) -> None:
    out = await call("grep_search", pattern=r"handler\(\)")
    assert not out.is_error
    assert out.content.splitlines() == [
        "Found 3 matches in 3 files",
        "README.md:1: call handler() here",
        "src/app.py:3: def handler():",
        "src/util.ts:1: export function handler() {}",
    ]


async def test_glob_and_path_narrow_the_search(call: Call, tree: Path) -> None:
    by_glob = await call("grep_search", pattern="handler", glob="*.py")
    assert by_glob.content.splitlines()[1:] == ["src/app.py:3: def handler():"]
    by_brace = await call("grep_search", pattern="handler", glob="src/*.{py,ts}")
    assert len(by_brace.content.splitlines()) == 3
    by_file = await call("grep_search", pattern="os", path="src/app.py")
    assert by_file.content.splitlines()[1:] == [
        "src/app.py:1: import os",
        "src/app.py:4: return os.sep",
    ]


async def test_no_match_says_so(call: Call, tree: Path) -> None:
    out = await call("grep_search", pattern="nothing_here", glob="*.md")
    assert not out.is_error
    assert out.content == "No matches for 'nothing_here' in . (files matching *.md)"


async def test_invalid_regex_is_a_clear_error(call: Call, tree: Path) -> None:
    out = await call("grep_search", pattern="handler(")
    assert out.is_error
    assert out.content.startswith("grep_search: invalid regex 'handler(': missing ), unterminated")


async def test_many_matches_are_capped_with_a_count(call: Call, workspace: Path) -> None:
    (workspace / "many.txt").write_text("hit\n" * 250)
    out = await call("grep_search", pattern="hit")
    assert out.content.startswith("Found 250 matches in 1 file")
    assert out.content.count("many.txt:") == 200
    assert "[... 50 more matches omitted" in out.content


async def test_huge_result_text_is_capped_by_output_budget(
    call: Call, ctx: ToolContext, workspace: Path
) -> None:
    (workspace / "wide.txt").write_text(("x" * 250 + "\n") * 100)
    out = await call("grep_search", dataclasses.replace(ctx, max_output_chars=3000), pattern="x")
    assert len(out.content) <= 3000
    assert "full output saved to" in out.content


async def test_missing_path_and_outside_path_are_errors(
    call: Call, tree: Path, tmp_path: Path
) -> None:
    missing = await call("grep_search", pattern="a", path="nope")
    assert missing.is_error and missing.content == "grep_search: path not found: nope"
    outside = await call("grep_search", pattern="a", path=str(tmp_path))
    assert outside.is_error and "outside the workspace" in outside.content


def test_python_engine_skips_symlinks_and_handles_crlf(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("handler\n")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    (workspace / "win.txt").write_bytes(b"a\r\nhandler\r\n")
    matches = python_search(re.compile("handler$"), workspace, None)
    assert [(m.path.name, m.line, m.text) for m in matches] == [("win.txt", 2, "handler")]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
async def test_rg_engine_agrees_with_python_engine(tree: Path) -> None:
    env = dict(os.environ)
    by_rg = await run_search(r"handler\(\)", tree, None, 10.0, env)
    by_python = await run_search(r"handler\(\)", tree, None, 10.0, env, use_ripgrep=False)
    assert (by_rg.engine, by_python.engine) == ("ripgrep", "python")
    assert by_rg.matches == by_python.matches
    assert len(by_rg.matches) == 3


async def test_python_engine_in_a_child_process_matches_in_process_search(tree: Path) -> None:
    found = await run_search("handler", tree, "*.py", 10.0, dict(os.environ), use_ripgrep=False)
    assert not found.timed_out and found.engine == "python"
    expected = sorted(python_search(re.compile("handler"), tree, "*.py"), key=lambda m: m.path)
    assert found.matches == expected


def test_rg_json_keeps_paths_that_are_not_utf8() -> None:
    raw_path = base64.b64encode(b"./caf\xe9.txt").decode()
    event = {
        "type": "match",
        "data": {"path": {"bytes": raw_path}, "lines": {"text": "hit\n"}, "line_number": 4},
    }
    (match,) = parse_rg_json(json.dumps(event).encode(), Path("/ws"))
    assert os.fsencode(match.path) == b"/ws/caf\xe9.txt"
    assert (match.line, match.text) == (4, "hit")


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
async def test_ripgrep_answers_a_catastrophic_pattern_without_backtracking(
    workspace: Path,
) -> None:
    (workspace / "trap.txt").write_text("a" * 64 + "b\n")
    found = await run_search("(a+)+$", workspace, None, 10.0, dict(os.environ))
    assert (found.engine, found.timed_out, found.matches) == ("ripgrep", False, [])


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
async def test_a_pattern_ripgrep_rejects_falls_back_to_python(tree: Path) -> None:
    found = await run_search(r"(?<=def )handler", tree, None, 10.0, dict(os.environ))
    assert found.engine == "python"
    assert [m.path.name for m in found.matches] == ["app.py"]


@pytest.mark.parametrize("use_ripgrep", [True, False])
async def test_files_a_read_rule_denies_are_left_out_and_said(
    tree: Path, ctx: ToolContext, use_ripgrep: bool
) -> None:

    (tree / ".env").write_text("handler_TOKEN=sk-123\n")
    (tree / "src/secret.py").write_text("handler = 'sk-456'\n")
    book = RuleBook([PermissionRule("deny", "Read(.env)", "/u/s.json")])
    book.saved.append(PermissionRule("deny", "read_file(src/secret.py)", "/u/s.json"))
    guarded = dataclasses.replace(ctx, read_guard=book.read_guard(tree))
    tool = GrepSearchTool(use_ripgrep=use_ripgrep)
    out = await tool.run({"pattern": "handler"}, guarded)
    assert "sk-123" not in out.content and "sk-456" not in out.content
    assert "README.md:1" in out.content
    assert out.content.splitlines()[-1] == (
        '[2 files with matches left out: the user\'s deny rule "Read(.env)" from /u/s.json; '
        'deny rule "read_file(src/secret.py)" from /u/s.json keeps tools from reading them]'
    )
    nothing = await tool.run({"pattern": "sk-"}, guarded)
    assert nothing.content.startswith("No matches for 'sk-' in .")
    assert "2 files with matches left out" in nothing.content
