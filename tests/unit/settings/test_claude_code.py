"""Claude Code's settings files read in place: what maps onto lull's keys, lull's own files
winning, and a repository's .claude/ treated like its .lull/ (only narrowing; hooks, allow
rules and added directories waiting for /trust)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lull.settings import LoadedSettings
from lull.settings.directories import AddedDirectory
from lull.settings.paths import claude_user_settings_path
from tests.unit.settings.conftest import Home


def write(path: Path, content: Any) -> Path:
    """Write JSON to ``path``, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), "utf-8")
    return path


def claude_user(content: Any) -> Path:
    """Write ~/.claude/settings.json (HOME is a temp dir in every test)."""
    return write(claude_user_settings_path(), content)


def claude_project(home: Home, content: Any, name: str = "settings.json") -> Path:
    """Write the workspace's .claude/settings.json (or settings.local.json)."""
    return write(home.workspace / ".claude" / name, content)


def messages(loaded: LoadedSettings) -> str:
    """Every diagnostic, one per line."""
    return "\n".join(d.message for d in loaded.diagnostics)


def test_the_user_claude_file_sets_model_rules_mode_hooks_and_directories(home: Home) -> None:
    source = claude_user(
        {
            "model": "sonnet",
            "permissions": {
                "allow": ["Bash(npm run test:*)"],
                "deny": ["Read(./.env)"],
                "defaultMode": "acceptEdits",
                "additionalDirectories": ["~/shared"],
            },
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]},
            "statusLine": {"type": "command", "command": "x"},  # Claude Code's own: left alone
        }
    )
    loaded = home.load()
    settings = loaded.settings
    assert settings.model.name == "sonnet"
    assert settings.tools.approval_mode == "auto-edit"
    assert [r.text for r in settings.permissions.allow] == ["Bash(npm run test:*)"]
    assert settings.permissions.deny[0].source == str(source)
    assert settings.permissions.deny[0].scope == "user"
    assert settings.permissions.additional_directories == (
        AddedDirectory("~/shared", str(source), project=False),
    )
    assert [(h.event, h.command, h.project) for h in settings.hooks] == [
        ("Stop", "echo done", False)
    ]
    assert loaded.sources["model.name"] == str(source)
    assert loaded.diagnostics == []


def test_lulls_user_file_wins_a_key_both_set_and_their_rules_add_up(home: Home) -> None:
    claude_user({"model": "opus", "permissions": {"defaultMode": "plan", "deny": ["Bash(rm:*)"]}})
    home.write_user({"model": {"name": "my-model"}, "permissions": {"deny": ["web_fetch"]}})
    settings = home.load().settings
    assert settings.model.name == "my-model"
    assert settings.tools.approval_mode == "plan"  # lull's file does not set it
    assert sorted(r.text for r in settings.permissions.deny) == ["Bash(rm:*)", "web_fetch"]


@pytest.mark.parametrize(
    ("claude_mode", "mode"),
    [("default", "default"), ("acceptEdits", "auto-edit"), ("plan", "plan"),
     ("bypassPermissions", "yolo"), ("dontAsk", "dont-ask")],
)  # fmt: skip
def test_claude_codes_default_modes_map_onto_approval_modes(
    home: Home, claude_mode: str, mode: str
) -> None:
    claude_user({"permissions": {"defaultMode": claude_mode}})
    assert home.load().settings.tools.approval_mode == mode


@pytest.mark.parametrize("claude_mode", ["whatever", 3])
def test_an_unknown_default_mode_is_a_warning_naming_the_file(home: Home, claude_mode: Any) -> None:
    source = claude_user({"permissions": {"defaultMode": claude_mode}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "default"
    assert f"{source}: permissions.defaultMode = " in messages(loaded)
    assert "expected one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto" in (
        messages(loaded)
    )


def test_auto_mode_runs_as_auto_edit_and_says_what_differs(home: Home) -> None:
    source = claude_user({"permissions": {"defaultMode": "auto"}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "auto-edit"
    assert f'{source}: permissions.defaultMode = "auto" runs as lull\'s auto-edit mode' in (
        messages(loaded)
    )


def test_a_project_claude_file_may_set_dont_ask(home: Home) -> None:
    claude_project(home, {"permissions": {"defaultMode": "dontAsk"}})
    assert home.load().settings.tools.approval_mode == "dont-ask"  # narrower than default


def test_a_project_claude_file_may_narrow_but_not_widen_the_mode(home: Home) -> None:
    source = claude_project(home, {"permissions": {"defaultMode": "bypassPermissions"}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "default"
    assert f'{source}: tools.approvalMode = "yolo" is ignored' in messages(loaded)
    claude_project(home, {"permissions": {"defaultMode": "plan"}})
    assert home.load().settings.tools.approval_mode == "plan"


def test_a_project_claude_file_may_not_choose_the_model(home: Home) -> None:
    source = claude_project(home, {"model": "opus"})
    loaded = home.load()
    assert loaded.settings.model.name is None
    assert f"{source}: model.name" in messages(loaded)


def test_project_rules_hooks_and_directories_are_marked_as_the_projects(home: Home) -> None:
    source = claude_project(
        home,
        {
            "permissions": {
                "allow": ["Bash(make:*)"],
                "deny": ["Read(./secrets/**)"],
                "additionalDirectories": ["../sibling"],
            },
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "./check.sh"}]}]},
        },
    )  # fmt: skip
    settings = home.load().settings
    assert [(r.text, r.scope, r.source) for r in settings.permissions.allow] == [
        ("Bash(make:*)", "project", str(source))
    ]
    assert settings.permissions.deny[0].scope == "project"
    assert settings.permissions.additional_directories == (
        AddedDirectory("../sibling", str(source), project=True),
    )
    assert [(h.command, h.project, h.source) for h in settings.hooks] == [
        ("./check.sh", True, str(source))
    ]


def test_lulls_project_file_wins_over_claude_codes_and_local_over_shared(home: Home) -> None:
    home.write_user({"tools": {"approvalMode": "yolo"}})
    claude_project(home, {"permissions": {"defaultMode": "default", "deny": ["Bash(a:*)"]}})
    local = claude_project(
        home, {"permissions": {"defaultMode": "acceptEdits", "deny": ["Bash(b:*)"]}},
        "settings.local.json",
    )  # fmt: skip
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "auto-edit"
    assert loaded.sources["tools.approvalMode"] == str(local)
    assert sorted(r.text for r in loaded.settings.permissions.deny) == ["Bash(a:*)", "Bash(b:*)"]
    home.write_project({"tools": {"approvalMode": "plan"}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "plan"
    assert loaded.sources["tools.approvalMode"] == str(home.project_file)


def test_a_broken_claude_file_is_reported_and_the_rest_loads(home: Home) -> None:
    source = claude_project(home, {"permissions": ["Bash"]})
    path = claude_user_settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json", "utf-8")
    home.write_user({"maxTurns": 7})
    loaded = home.load()
    assert loaded.settings.max_turns == 7
    text = messages(loaded)
    assert f"{source}: permissions: expected an object" in text
    assert str(path) in text


def test_a_bad_rule_names_the_file_and_the_entry(home: Home) -> None:
    source = claude_project(home, {"permissions": {"deny": ["Bash(rm"]}})
    loaded = home.load()
    assert loaded.settings.permissions.deny == ()
    assert f"{source}: permissions.deny: expected" in messages(loaded)
    assert "no closing parenthesis" in messages(loaded)


def test_env_in_the_users_claude_file_applies(home: Home) -> None:
    claude_user({"env": {"FOO": "1", "DEBUG": True}})
    loaded = home.load()
    assert [(v.name, v.value, v.scope) for v in loaded.settings.env] == [
        ("FOO", "1", "user"),
        ("DEBUG", "true", "user"),
    ]
    assert not [m for m in messages(loaded) if "env" in m]


def test_a_projects_env_is_kept_marked_as_the_projects_and_may_not_replace_yours(
    home: Home,
) -> None:
    claude_user({"env": {"FOO": "mine"}})
    source = claude_project(home, {"env": {"FOO": "theirs", "BAR": "1"}})
    loaded = home.load()
    env = {v.name: v for v in loaded.settings.env}
    assert (env["FOO"].value, env["FOO"].scope) == ("mine", "user")
    assert (env["BAR"].value, env["BAR"].scope, env["BAR"].source) == ("1", "project", str(source))
    assert f"{source}: env" in messages(loaded) and "FOO" in messages(loaded)


def test_add_dir_on_the_command_line_adds_to_the_files(home: Home, tmp_path: Path) -> None:
    claude_user({"permissions": {"additionalDirectories": ["/a"]}})
    loaded = home.load(cli={"permissions.additionalDirectories": [str(tmp_path)]})
    assert loaded.settings.permissions.additional_directories == (
        AddedDirectory("/a", str(claude_user_settings_path())),
        AddedDirectory(str(tmp_path), "--add-dir"),
    )


def test_claude_json_servers_come_below_lulls_and_local_scope_wins_user_scope(home: Home) -> None:
    home.write_user({"mcpServers": {"github": {"command": "lulls-github"}}})
    here = str(home.workspace.resolve())
    path = write(
        Path.home() / ".claude.json",
        {
            "numStartups": 7,  # Claude Code's own state: left alone
            "mcpServers": {
                "github": {"command": "claudes-github"},
                "db": {"command": "user-db"},
                "broken": {"command": 3},
            },
            "projects": {
                here: {"mcpServers": {"db": {"type": "http", "url": "https://db.local/mcp"}}},
                "/elsewhere": {"mcpServers": {"other": {"command": "other"}}},
            },
        },
    )
    loaded = home.load()
    servers = {s.name: s for s in loaded.settings.mcp_servers}
    assert set(servers) == {"github", "db"}
    assert servers["github"].command == "lulls-github"  # lull's own settings win
    assert servers["db"].url == "https://db.local/mcp"  # this workspace's local scope wins
    assert servers["db"].scope == "user" and servers["db"].source == f"{path}, local scope"
    assert f"{path}: mcpServers.broken: expected " in messages(loaded)
