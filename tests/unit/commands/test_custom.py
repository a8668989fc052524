"""Custom slash command files: names, front matter, broken files, and who wins a name."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.commands.custom import (
    CommandFileError,
    command_name,
    load_custom_commands,
    parse_command_file,
    workspace_commands,
)
from lull.engine.calls.scope import ToolRule
from lull.model.messages import ToolCall

REVIEW = """\
---
description: Review the staged change
argument-hint: [focus]
allowed-tools:
  - Read
  - Bash(git diff:*)
model: claude-haiku-4-5
---
Review the staged change, focusing on $ARGUMENTS.
"""


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_names_follow_the_folders() -> None:
    assert command_name(Path("review.md")) == "review"
    assert command_name(Path("frontend/test.md")) == "frontend:test"
    assert command_name(Path("bad name.md")) is None


def test_front_matter_sets_every_field(tmp_path: Path) -> None:
    command = parse_command_file(REVIEW, "review", tmp_path / "review.md", "user")
    assert command.description == "Review the staged change"
    assert command.argument_hint == "[focus]"
    assert command.allowed_tools == (
        ToolRule("read_file"),
        ToolRule("run_shell_command", "git diff"),
    )
    assert command.model == "claude-haiku-4-5"
    assert command.body == "Review the staged change, focusing on $ARGUMENTS."
    assert command.usage == "/review [focus]"
    assert command.summary == "Review the staged change (user)"


def test_inline_lists_and_no_front_matter(tmp_path: Path) -> None:
    inline = '---\nallowed-tools: [Read, "Bash(git log:*)"]\n---\nbody'
    command = parse_command_file(inline, "x", tmp_path / "x.md", "project")
    assert command.allowed_tools == (
        ToolRule("read_file"),
        ToolRule("run_shell_command", "git log"),
    )
    plain = parse_command_file("Explain $1 simply.\nMore.", "explain", tmp_path / "e.md", "user")
    assert plain.allowed_tools is None and plain.summary == "Explain $1 simply. (user)"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("---\ndescription: x\nbody without a fence", 1, "no closing --- line"),
        ("---\ndescription: x\nnot a pair\n---\nbody", 3, "expected 'key: value'"),
        ("---\nallowed-tools: Bash(git\n---\nbody", 2, "allowed-tools:"),
        ("---\nmodel: two words\n---\nbody", 2, "model: a model name has no spaces"),
        ("---\nallowed_tools: Read\n---\nbody", 2, "unknown key 'allowed_tools'"),
        ("---\ndescription: x\n---\n\n", 4, "the body (the prompt) is empty"),
    ],
)
def test_broken_files_name_the_line(text: str, line: int, message: str, tmp_path: Path) -> None:
    with pytest.raises(CommandFileError) as caught:
        parse_command_file(text, "x", tmp_path / "x.md", "user")
    assert caught.value.line == line
    assert message in str(caught.value)


def test_loading_skips_broken_files_with_path_and_line(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    write(user / "review.md", REVIEW)
    write(project / "review.md", "Project review")
    write(project / "frontend" / "test.md", "Run the frontend tests")
    broken = write(project / "broken.md", "---\nmodel: a b\n---\nbody")
    write(project / "help.md", "shadowing a built-in")
    write(project / "odd name.md", "x")
    loaded = load_custom_commands(user, project, reserved=frozenset({"help"}))
    assert sorted(loaded.commands) == ["frontend:test", "review"]
    assert loaded.commands["review"].scope == "user"  # the user's wins
    problems = "\n".join(loaded.problems)
    assert f"{broken}:2: model: a model name has no spaces" in problems
    assert "/help is a built-in command" in problems
    assert "/review is already defined by" in problems
    assert "odd name.md: skipped" in problems


def test_a_project_command_only_narrows(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / "review.md", REVIEW)
    loaded = load_custom_commands(tmp_path / "none", project)
    command = loaded.commands["review"]
    assert command.model is None  # not trusted: the model is the user's choice
    assert any("ignored until you /trust" in p for p in loaded.problems)
    scope = command.turn_scope()
    assert scope is not None and not scope.preapproved
    assert not command.runs_unasked("git diff")
    trusted = load_custom_commands(tmp_path / "none", project, project_trusted=True)
    assert trusted.commands["review"].model == "claude-haiku-4-5"


def test_a_user_command_preapproves_what_it_lists(tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(user / "review.md", REVIEW)
    command = load_custom_commands(user, tmp_path / "none").commands["review"]
    scope = command.turn_scope()
    assert scope is not None and scope.preapproved
    assert scope.preapproves(ToolCall("c", "run_shell_command", {"command": "git diff --stat"}))
    assert command.runs_unasked("git diff --cached")
    assert not command.runs_unasked("git push")


def test_non_utf8_bytes_survive(tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(user / "latin.md", b"Explain caf\xe9 $ARGUMENTS")
    command = load_custom_commands(user, tmp_path / "none").commands["latin"]
    assert command.body == "Explain caf\udce9 $ARGUMENTS"


def test_a_project_command_file_leading_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    commands = workspace / ".lull" / "commands"
    secret = write(tmp_path / "secret.md", "the deploy key is hunter2")
    inside = write(workspace / "docs" / "prompt.md", "Review the docs")
    commands.mkdir(parents=True)
    (commands / "leak.md").symlink_to(secret)
    (commands / "docs.md").symlink_to(inside)
    loaded = load_custom_commands(tmp_path / "none", commands, workspace=workspace)
    assert "docs" in loaded.commands  # a link that stays inside the workspace is fine
    assert "leak" not in loaded.commands
    reason = (
        f"{commands / 'leak.md'}: skipped: it leads to {secret}, outside the workspace "
        f"{workspace}; a project command may read only files inside it until you /trust "
        "this workspace"
    )
    assert reason in loaded.problems
    assert loaded.refused == {"leak": reason}
    trusted = load_custom_commands(
        tmp_path / "none", commands, workspace=workspace, project_trusted=True
    )
    assert trusted.commands["leak"].body == "the deploy key is hunter2"
    assert not trusted.refused


def test_a_project_commands_folder_linked_outside_is_refused_file_by_file(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    outside = tmp_path / "elsewhere"
    write(outside / "commands" / "notes.md", "private notes")
    (workspace / ".lull").mkdir(parents=True)
    (workspace / ".lull" / "commands").symlink_to(outside / "commands")
    loaded = load_custom_commands(
        tmp_path / "none", workspace / ".lull" / "commands", workspace=workspace
    )
    assert loaded.commands == {}
    assert f"it leads to {outside / 'commands' / 'notes.md'}, outside" in loaded.refused["notes"]


def test_a_user_command_may_link_anywhere(tmp_path: Path) -> None:
    secret = write(tmp_path / "kept" / "mine.md", "my own prompt")
    user = tmp_path / "user"
    user.mkdir()
    (user / "mine.md").symlink_to(secret)
    loaded = load_custom_commands(user, tmp_path / "none", workspace=tmp_path / "repo")
    assert loaded.commands["mine"].body == "my own prompt"
    assert not loaded.commands["mine"].confined


def test_only_an_untrusted_project_s_command_is_confined(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / "review.md", REVIEW)
    assert load_custom_commands(tmp_path / "none", project).commands["review"].confined
    trusted = load_custom_commands(tmp_path / "none", project, project_trusted=True)
    assert not trusted.commands["review"].confined


def test_claude_codes_folders_are_read_in_place_and_lulls_win_a_name(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    claude_user = tmp_path / "home" / ".claude" / "commands"
    claude_project = workspace / ".claude" / "commands"
    write(tmp_path / "user" / "review.md", "lull's own review")
    write(claude_user / "review.md", "Claude Code's review")
    write(claude_user / "backend" / "api.md", "---\ndescription: Draft an API\n---\nDraft it")
    write(claude_project / "frontend" / "test.md", "---\ndescription: Run tests\n---\nRun them")
    write(claude_project / "greet.md", "Greet $ARGUMENTS")
    loaded = load_custom_commands(
        tmp_path / "user",
        workspace / ".lull" / "commands",
        workspace=workspace,
        claude_dirs=(claude_user, claude_project),
    )
    assert sorted(loaded.commands) == ["api", "greet", "review", "test"]
    assert loaded.commands["review"].body == "lull's own review"
    assert "/review is already defined by" in "\n".join(loaded.problems)
    assert loaded.commands["test"].summary == "Run tests (project:frontend)"
    assert loaded.commands["api"].summary == "Draft an API (user:backend)"
    assert loaded.commands["greet"].scope == "project"
    assert loaded.commands["greet"].confined  # not trusted: as a .lull/commands file


def test_workspace_commands_reads_claude_codes_folders(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write(workspace / ".claude" / "commands" / "greet.md", "Greet $ARGUMENTS")
    write(Path.home() / ".claude" / "commands" / "tidy.md", "Tidy up")
    loaded = workspace_commands(workspace, frozenset())
    assert {"greet", "tidy"} <= set(loaded.commands)
