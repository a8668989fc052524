"""Instruction files in the system prompt: Claude Code's CLAUDE.md files (the workspace's, the
folders above it, the user's) and their @path imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.catalog.instructions import MAX_IMPORT_DEPTH, project_instructions


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home folder with the workspace inside it."""
    folder = tmp_path / "home"
    (folder / "code" / "app").mkdir(parents=True)
    return folder


def test_the_users_the_parents_and_the_workspaces_files_in_order(home: Path) -> None:
    workspace = home / "code" / "app"
    write(home / ".claude" / "CLAUDE.md", "USER")
    write(home / "code" / "CLAUDE.md", "PARENT")
    write(home / "code" / ".claude" / "CLAUDE.md", "PARENT-DOT")
    write(workspace / "CLAUDE.md", "PROJECT")
    write(workspace / ".claude" / "CLAUDE.md", "PROJECT-DOT")
    write(home.parent / "CLAUDE.md", "ABOVE-HOME")  # above the home folder: not read
    text = project_instructions(workspace, home)
    order = ["USER", "PARENT", "PARENT-DOT", "PROJECT", "PROJECT-DOT"]
    positions = [text.index(word) for word in order]
    assert positions == sorted(positions)
    assert "ABOVE-HOME" not in text
    assert "## ~/.claude/CLAUDE.md (yours, for every project)" in text
    assert f"## {home / 'code' / 'CLAUDE.md'}" in text


def test_imports_are_expanded_relative_to_the_importing_file(home: Path) -> None:
    workspace = home / "code" / "app"
    write(workspace / "CLAUDE.md", "Style: @docs/style.md\nAlso @~/notes.md.")
    write(workspace / "docs" / "style.md", "Use tabs. See @../more/rules.md")
    write(workspace / "more" / "rules.md", "No globals.")
    write(home / "notes.md", "Be brief")
    text = project_instructions(workspace, home, trusted=True)
    assert "Style: Use tabs. See No globals." in text
    assert "Also Be brief." in text


def test_an_untrusted_workspace_imports_nothing_from_outside_it(home: Path) -> None:
    workspace = home / "code" / "app"
    write(workspace / "CLAUDE.md", "Key: @~/.ssh/id_rsa\nStyle: @docs/style.md")
    write(workspace / "docs" / "style.md", "Use tabs.")
    write(home / ".ssh" / "id_rsa", "PRIVATE KEY")
    write(home / ".claude" / "CLAUDE.md", "Mine: @~/notes.md")  # the user's own file may
    write(home / "notes.md", "Be brief")
    text = project_instructions(workspace, home)
    assert "PRIVATE KEY" not in text
    assert "@~/.ssh/id_rsa (not imported until you /trust this workspace" in text
    assert "Style: Use tabs." in text and "Mine: Be brief" in text


def test_imports_in_code_are_text_and_handles_stay(home: Path) -> None:
    workspace = home / "code" / "app"
    write(workspace / "secret.md", "SECRET")
    write(
        workspace / "CLAUDE.md",
        "Run `cat @secret.md` and ask @alice or mail a@secret.md\n```\n@secret.md\n```\n",
    )
    text = project_instructions(workspace, home)
    assert "SECRET" not in text
    assert "`cat @secret.md`" in text and "@alice" in text and "a@secret.md" in text


def test_an_import_outside_the_workspace_and_home_is_left_with_a_note(
    home: Path, tmp_path: Path
) -> None:
    workspace = home / "code" / "app"
    outside = write(tmp_path / "elsewhere" / "creds.md", "TOKEN")
    write(workspace / "CLAUDE.md", f"See @{outside}")
    text = project_instructions(workspace, home)
    assert "TOKEN" not in text
    assert f"@{outside} (not imported: outside the workspace and your home folder)" in text


def test_cycles_stop_and_depth_is_limited(home: Path) -> None:
    workspace = home / "code" / "app"
    write(workspace / "CLAUDE.md", "A @a.md")
    write(workspace / "a.md", "in-a @CLAUDE.md")
    text = project_instructions(workspace, home)
    assert "A in-a @CLAUDE.md (not imported: it is already being imported)" in text
    chain = [f"level{n} @l{n + 1}.md" for n in range(MAX_IMPORT_DEPTH + 3)]
    write(workspace / "CLAUDE.md", "@l1.md")
    for n in range(1, MAX_IMPORT_DEPTH + 3):
        write(workspace / f"l{n}.md", chain[n])
    text = project_instructions(workspace, home)
    assert f"level{MAX_IMPORT_DEPTH}" in text
    assert f"more than {MAX_IMPORT_DEPTH} imports deep" in text
    assert f"level{MAX_IMPORT_DEPTH + 1}" not in text


def test_a_workspace_outside_home_reads_parents_up_to_the_root(tmp_path: Path) -> None:
    workspace = tmp_path / "outside" / "ws"
    workspace.mkdir(parents=True)
    write(tmp_path / "outside" / "CLAUDE.md", "PARENT")
    assert "PARENT" in project_instructions(workspace, tmp_path / "nohome")
