"""The ``hooks`` setting: Claude Code's shape parsed into commands, every bad entry named by
event, group and key, the files' hooks adding up, a project's marked as the project's."""

from __future__ import annotations

import pytest

from lull.model.hooks import HookCommand
from lull.settings.checks import Invalid, PartlyInvalid
from lull.settings.hooks import Hooks
from tests.unit.settings.conftest import Home

CLAUDE_CODE_SHAPE = {
    "PreToolUse": [
        {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}],
        }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "make test"}]}],
}


def test_claude_codes_shape_becomes_commands_and_back() -> None:
    check = Hooks()
    commands = check.check(CLAUDE_CODE_SHAPE)
    assert commands == (
        HookCommand("PreToolUse", "./check.sh", "Bash", 5.0),
        HookCommand("Stop", "make test", ""),
    )
    assert check.to_json(commands) == {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5.0}],
            }
        ],
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "make test"}]}],
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"BeforeTool": []}, "'BeforeTool' is not a hook event (PreToolUse, "),
        ({"TeammateIdle": []}, "lull never fires TeammateIdle (a Claude Code event)"),
        (
            {"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]},
            "lull runs command hooks; prompt is not one",
        ),
        ({"Stop": {}}, "a list of matcher groups for Stop"),
        ({"Stop": [{"hooks": [], "when": 1}]}, "only matcher and hooks in Stop[0]; when is not"),
        ({"Stop": [{"matcher": "(", "hooks": []}]}, "a regular expression in Stop[0].matcher"),
        ({"Stop": [{"hooks": [{"type": "url", "command": "x"}]}]}, "Stop[0].hooks[0]"),
        ({"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}, "Stop[0].hooks[0].command"),
        (
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]},
            "a number of seconds > 0 in Stop[0].hooks[0].timeout (got 0)",
        ),
    ],
)
def test_a_bad_entry_is_named(value: object, message: str) -> None:
    with pytest.raises(Invalid) as raised:
        Hooks().check(value)
    assert message in str(raised.value)


def test_every_files_hooks_add_up_and_a_projects_are_marked(home: Home) -> None:
    user = home.write_user({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}]}})
    project = home.write_project(
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "b"}]}]}}
    )
    loaded = home.load()
    assert loaded.settings.hooks == (
        HookCommand("Stop", "a", source=str(user), project=False),
        HookCommand("Stop", "b", source=str(project), project=True),
    )
    assert not [d for d in loaded.diagnostics if "hooks" in d.message]


def test_a_broken_project_hook_is_reported_with_its_file(home: Home) -> None:
    project = home.write_project({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}})
    (problem,) = home.load().diagnostics
    assert problem.message.startswith(f"{project}: hooks:")
    assert "Stop[0].hooks[0].command" in problem.message


def test_a_wrong_entry_costs_only_itself() -> None:
    value = {
        "BeforeTool": [{"hooks": [{"type": "command", "command": "lost"}]}],
        "SessionEnd": [{"matcher": "clear", "hooks": [{"type": "command", "command": "bye"}]}],
        "Stop": [
            {"hooks": [{"type": "http", "url": "http://127.0.0.1:1/"}]},
            {"hooks": [{"type": "command", "command": "make test", "statusMessage": "testing"}]},
        ],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "lint", "args": ["a b", "c"]}]}],
    }
    with pytest.raises(PartlyInvalid) as raised:
        Hooks().check(value)
    assert raised.value.kept == (
        HookCommand("SessionEnd", "bye", "clear"),
        HookCommand("Stop", "make test"),
        HookCommand("SubagentStop", "lint 'a b' c"),
    )
    assert len(raised.value.problems) == 2


def test_the_other_hooks_of_a_file_with_an_unknown_event_still_load(home: Home) -> None:
    user = home.write_user(
        {
            "hooks": {
                "OnSave": [{"hooks": [{"type": "command", "command": "a"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "b"}]}],
            }
        }
    )
    loaded = home.load()
    assert loaded.settings.hooks == (HookCommand("Stop", "b", source=str(user)),)
    (problem,) = loaded.diagnostics
    assert problem.level == "warning"
    assert problem.message.startswith(f"{user}: hooks: 'OnSave' is not a hook event")
