"""The system prompt: a static part that never changes, and the per-session environment."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

from lull.catalog.prompt import STATIC_SYSTEM_PROMPT, environment_prompt, project_instructions


def test_static_prompt_holds_nothing_that_varies(tmp_path: Path) -> None:
    today = dt.date.today().isoformat()
    assert today not in STATIC_SYSTEM_PROMPT
    assert str(tmp_path) not in STATIC_SYSTEM_PROMPT
    for tool in ("read_file", "edit", "write_file", "run_shell_command", "grep_search"):
        assert tool in STATIC_SYSTEM_PROMPT


def test_environment_names_workspace_platform_date_and_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    (tmp_path / "new.py").write_text("x = 1\n")
    text = environment_prompt(tmp_path, today=dt.date(2026, 11, 22))
    assert f"Workspace: {tmp_path}" in text
    assert "Today's date: 2026-11-22" in text
    assert "Platform: " in text
    assert "branch" in text and "new.py" in text


def test_environment_without_git(tmp_path: Path) -> None:
    assert "not a git repository" in environment_prompt(tmp_path)


def test_project_instructions_are_loaded_in_order(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Use tabs.\n")
    (tmp_path / "CLAUDE.md").write_text("Run make test.\n")
    text = environment_prompt(tmp_path)
    assert text.index("Use tabs.") < text.index("Run make test.")
    assert "## AGENTS.md" in text and "## CLAUDE.md" in text


def test_huge_instructions_are_truncated(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rule\n" * 20_000)
    text = project_instructions(tmp_path)
    assert "AGENTS.md truncated" in text
    assert len(text) < 45_000
