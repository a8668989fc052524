"""The permissions settings: rule lists checked entry by entry, every file's rules adding up
with their sources, a project's rules marked as the project's, the user's workspace rules."""

from __future__ import annotations

import json

import pytest

from lull.model.permissions import PermissionRule
from lull.settings.checks import Invalid
from lull.settings.permission_rules import RuleList
from lull.settings.rule_files import save_rule, workspace_rules_path
from lull.settings.writer import WriteProblem
from tests.unit.settings.conftest import Home


def test_a_rule_list_names_the_bad_entry() -> None:
    check = RuleList(effect="deny")
    assert check.check(["Bash(rm *)", " edit "]) == (
        PermissionRule("deny", "Bash(rm *)"),
        PermissionRule("deny", "edit"),
    )
    with pytest.raises(Invalid, match=r"entry 1: rule 'Bash\(rm' has no closing parenthesis"):
        check.check(["edit", "Bash(rm"])
    with pytest.raises(Invalid, match="entry 0: rule 'Bash\\(\\)' has an empty pattern"):
        check.check(["Bash()"])
    with pytest.raises(Invalid, match="entry 0 is int"):
        check.check([3])
    assert check.parse("Bash(a, b), edit") == (
        PermissionRule("deny", "Bash(a, b)"),
        PermissionRule("deny", "edit"),
    )


def test_every_file_adds_its_rules_with_its_source(home: Home) -> None:
    user = home.write_user({"permissions": {"allow": ["Bash(npm test*)"], "deny": ["Bash(rm *)"]}})
    project = home.write_project(
        {"permissions": {"allow": ["Bash(make *)"], "deny": ["read_file(.env)"]}}
    )
    loaded = home.load()
    permissions = loaded.settings.permissions
    assert permissions.allow == (
        PermissionRule("allow", "Bash(npm test*)", str(user), "user"),
        PermissionRule("allow", "Bash(make *)", str(project), "project"),
    )
    assert permissions.deny == (
        PermissionRule("deny", "Bash(rm *)", str(user), "user"),
        PermissionRule("deny", "read_file(.env)", str(project), "project"),
    )
    assert [r.effect for r in permissions.rules()] == ["deny", "deny", "allow", "allow"]
    assert not [d for d in loaded.diagnostics if "permissions" in d.message]


def test_a_broken_rule_in_a_project_file_is_reported_with_the_file(home: Home) -> None:
    home.write_user({"permissions": {"deny": ["Bash(rm *)"]}})
    project = home.write_project({"permissions": {"deny": ["Bash(rm"]}})
    loaded = home.load()
    (problem,) = loaded.diagnostics
    assert problem.message.startswith(f"{project}: permissions.deny: expected a list of rules")
    assert "has no closing parenthesis" in problem.message
    assert [r.text for r in loaded.settings.permissions.deny] == ["Bash(rm *)"]


def test_workspace_rules_are_the_users_and_saved_outside_the_repository(home: Home) -> None:
    where = save_rule("run_shell_command(make *)", home.workspace)
    path = workspace_rules_path()
    assert where == f"{path} (for {home.workspace.resolve()})"
    assert not (home.workspace / ".lull").exists()
    save_rule("run_shell_command(make *)", home.workspace)  # once only
    data = json.loads(path.read_text())
    assert data["workspaces"][str(home.workspace.resolve())] == {
        "allow": ["run_shell_command(make *)"]
    }
    loaded = home.load()
    (rule,) = loaded.settings.permissions.allow
    assert (rule.text, rule.scope, rule.source) == ("run_shell_command(make *)", "workspace", where)
    other = home.workspace / "sub"
    other.mkdir()
    assert home.load().settings.permissions.allow  # the same workspace only
    from lull.settings.loader import load_settings

    assert not load_settings(other, env={}).settings.permissions.allow


def test_everywhere_goes_to_the_user_file_keeping_what_is_there(home: Home) -> None:
    home.write_user({"model": {"name": "m"}, "permissions": {"allow": ["edit"]}})
    assert save_rule("Bash(ls *)", None) == str(home.user_file)
    data = json.loads(home.user_file.read_text())
    assert data == {"model": {"name": "m"}, "permissions": {"allow": ["edit", "Bash(ls *)"]}}
    home.write_user("{broken")
    with pytest.raises(WriteProblem, match="not saved"):
        save_rule("Bash(ls *)", None)
    assert home.user_file.read_text() == "{broken"


def test_a_broken_workspace_rules_file_is_reported_and_skipped(home: Home) -> None:
    path = workspace_rules_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = str(home.workspace.resolve())
    path.write_text(json.dumps({"workspaces": {key: {"deny": ["rm("]}}}))
    loaded = home.load()
    assert any(str(path) in d.message and "entry 0" in d.message for d in loaded.diagnostics)
    assert loaded.settings.permissions.deny == ()
