"""The guardrails group and tools.exclude: defaults, checks, and what a project may do."""

from __future__ import annotations

import pytest

from lull.model import defaults
from lull.runtime.wiring import guardrail_policy, tool_registry
from lull.settings import LoadedSettings, SettingsError
from tests.unit.settings.conftest import Home


def messages(loaded: LoadedSettings) -> list[str]:
    return [d.message for d in loaded.diagnostics]


def test_every_guard_is_on_by_default(home: Home) -> None:
    guards = home.load().settings.guardrails
    assert guards.rollback and guards.duplicate_calls and guards.doom_loop
    assert guards.stream_repetition and guards.argument_repair and guards.continuation
    assert guards.max_consecutive_rollbacks == 5 and guards.extra_requests == 200
    assert guards.doom_loop_repeats == 3 and guards.max_continuations == 3
    assert guards.tool_retries == 3 and guards.max_attempts == defaults.MAX_ATTEMPTS == 1


def test_the_user_may_switch_guards_off_and_set_limits(home: Home) -> None:
    home.write_user(
        {"guardrails": {"rollback": False, "maxConsecutiveRollbacks": 2, "maxAttempts": 3}}
    )
    loaded = home.load()
    assert loaded.diagnostics == []
    guards = loaded.settings.guardrails
    assert not guards.rollback and guards.max_consecutive_rollbacks == 2
    policy = guardrail_policy(loaded.settings)
    assert not policy.rollback and policy.max_consecutive_rollbacks == 2


def test_a_project_may_make_guards_stricter_never_switch_one_off(home: Home) -> None:
    home.write_user({"guardrails": {"doomLoop": False, "maxAttempts": 3}})
    project = home.write_project(
        {
            "guardrails": {
                "rollback": False,
                "doomLoop": True,
                "doomLoopRepeats": 2,
                "maxAttempts": 5,
            }
        }
    )
    loaded = home.load()
    guards = loaded.settings.guardrails
    assert guards.rollback  # not switched off
    assert guards.doom_loop and guards.doom_loop_repeats == 2  # switched on, stricter
    assert guards.max_attempts == 3  # not raised
    assert [m.split(" is ignored")[0] for m in messages(loaded)] == [
        f"{project}: guardrails.rollback = false",
        f"{project}: guardrails.maxAttempts = 5",
    ]
    assert "a project may turn it on, never off" in messages(loaded)[0]


def test_a_bad_guard_value_names_the_file_and_key(home: Home) -> None:
    user = home.write_user({"guardrails": {"doomLoopRepeats": 1, "rollback": "yes"}})
    assert messages(home.load()) == [
        f"{user}: guardrails.doomLoopRepeats: expected an integer >= 2, got 1; using default 3",
        f'{user}: guardrails.rollback: expected true or false, got "yes"; using default true',
    ]


def test_a_project_may_only_add_to_the_excluded_tools(home: Home) -> None:
    home.write_user({"tools": {"exclude": ["web_fetch"]}})
    home.write_project({"tools": {"exclude": ["run_shell_command"]}})
    loaded = home.load()
    assert loaded.diagnostics == []
    assert loaded.settings.tools.exclude == ("web_fetch", "run_shell_command")
    home.write_project({"tools": {"exclude": []}})
    assert home.load().settings.tools.exclude == ("web_fetch",)  # cannot un-exclude


def test_exclude_tools_on_the_command_line_adds_to_the_files(home: Home) -> None:
    home.write_user({"tools": {"exclude": ["web_fetch"]}})
    loaded = home.load(cli={"tools.exclude": "glob, web_fetch", "guardrails.maxAttempts": "2"})
    assert loaded.settings.tools.exclude == ("web_fetch", "glob")
    assert loaded.sources["tools.exclude"] == "--exclude-tools"
    assert loaded.settings.guardrails.max_attempts == 2
    with pytest.raises(SettingsError, match="--max-attempts: expected an integer >= 1, got '0'"):
        home.load(cli={"guardrails.maxAttempts": "0"})


def test_an_excluded_name_that_is_no_tool_is_a_warning(home: Home) -> None:
    user = home.write_user({"tools": {"exclude": ["web_fetch", "bash"]}})
    loaded = home.load()
    registry = tool_registry(loaded.settings, loaded)
    assert "web_fetch" not in registry.names()
    [message] = messages(loaded)
    assert message.startswith(f"{user}: tools.exclude: no tool named 'bash' (the tools: ")
