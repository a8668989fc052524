"""Loading settings: precedence, key-by-key merge, sources and every kind of bad input."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lull.model import defaults
from lull.settings import LoadedSettings, Settings, SettingsError, load_settings
from tests.unit.settings.conftest import Home

IDLE = "context.clearContextOnIdle"


def _idle(**values: object) -> dict[str, object]:
    """A settings document with only clearContextOnIdle values."""
    return {"context": {"clearContextOnIdle": values}}


def messages(loaded: LoadedSettings) -> list[str]:
    """The diagnostic messages, in order."""
    return [d.message for d in loaded.diagnostics]


# --- precedence -------------------------------------------------------------------------


def test_no_files_gives_defaults_and_nothing_to_report(home: Home) -> None:
    loaded = home.load()
    assert loaded.settings == Settings()
    assert loaded.diagnostics == []
    assert loaded.sources == {}


def test_each_level_overrides_the_one_below(home: Home) -> None:
    home.write_user({"model": {"name": "user-model"}})
    assert home.load().settings.model.name == "user-model"
    env = {"LULL_MODEL": "env-model"}
    assert home.load(env=env).settings.model.name == "env-model"
    loaded = home.load(env=env, cli={"model.name": "cli-model"})
    assert loaded.settings.model.name == "cli-model"
    assert loaded.sources["model.name"] == "--model"


def test_each_level_overrides_the_one_below_for_a_key_a_project_may_narrow(home: Home) -> None:
    home.write_user({"tools": {"approvalMode": "yolo"}})
    assert home.load().settings.tools.approval_mode == "yolo"
    project = home.write_project({"tools": {"approvalMode": "auto-edit"}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "auto-edit"
    assert loaded.sources["tools.approvalMode"] == str(project)
    env = {"LULL_APPROVAL_MODE": "default"}
    assert home.load(env=env).settings.tools.approval_mode == "default"
    cli = {"tools.approvalMode": "plan"}
    assert home.load(env=env, cli=cli).settings.tools.approval_mode == "plan"


def test_project_overrides_one_nested_key_and_keeps_the_rest(home: Home) -> None:
    home.write_user(
        {
            "model": {"name": "m", "contextWindow": 1000},
            "context": {
                "clearContextOnIdle": {"thinkingThresholdMinutes": 1, "toolResultsNumToKeep": 7},
                "compression": {"threshold": 0.5},
            },
        }
    )
    home.write_project(_idle(toolResultsNumToKeep=3))
    s = home.load().settings
    assert s.context.clear_context_on_idle.tool_results_num_to_keep == 3
    assert s.context.clear_context_on_idle.thinking_threshold_minutes == 1.0
    assert s.context.compression.threshold == 0.5
    assert (s.model.name, s.model.context_window) == ("m", 1000)


def test_a_project_null_is_judged_like_any_other_value(home: Home) -> None:
    home.write_user({"model": {"baseUrl": "http://127.0.0.1:9", "maxOutputTokens": 4000}})
    home.write_project({"model": {"baseUrl": None, "maxOutputTokens": None, "contextWindow": None}})
    loaded = home.load()
    assert loaded.settings.model.base_url == "http://127.0.0.1:9"  # user only: kept
    assert loaded.settings.model.max_output_tokens == 4000  # null means 8192: wider, kept
    assert loaded.settings.model.context_window is None  # null under null: the same, applied
    assert [m.split(" = ")[0].rsplit(": ", 1)[1] for m in messages(loaded)] == [
        "model.baseUrl",
        "model.maxOutputTokens",
    ]


def test_env_overrides_files_and_cli_overrides_env(home: Home) -> None:
    home.write_project({"tools": {"approvalMode": "plan"}, **_idle(toolResultsNumToKeep=9)})
    env = {"LULL_APPROVAL_MODE": "auto-edit", "LULL_TOOL_RESULTS_NUM_TO_KEEP": "2"}
    loaded = home.load(env=env, cli={"tools.approvalMode": "yolo"})
    assert loaded.settings.tools.approval_mode == "yolo"
    assert loaded.settings.context.clear_context_on_idle.tool_results_num_to_keep == 2


def test_sources_name_where_each_non_default_value_came_from(home: Home) -> None:
    user = home.write_user({"maxTurns": 7, "model": {"name": "u"}})
    project = home.write_project(
        {"context": {"compression": {"threshold": 0.5}}, "tools": {"maxOutputChars": 10}}
    )
    env = {"LULL_THINKING_THRESHOLD_MINUTES": "2"}
    loaded = home.load(env=env, cli={"tools.approvalMode": "plan", "model.provider": None})
    assert loaded.sources == {
        "maxTurns": str(user),
        "model.name": str(user),
        "context.compression.threshold": str(project),
        "tools.maxOutputChars": str(project),
        f"{IDLE}.thinkingThresholdMinutes": "env LULL_THINKING_THRESHOLD_MINUTES",
        "tools.approvalMode": "--approval-mode",
    }


def test_env_defaults_to_the_process_environment(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LULL_MODEL", "from-os-environ")
    assert load_settings(home.workspace).settings.model.name == "from-os-environ"


# --- broken files -----------------------------------------------------------------------


def test_json_syntax_error_names_line_and_column_and_only_that_file_is_lost(home: Home) -> None:
    home.write_user({"maxTurns": 3})
    path = home.write_project('{\n  "maxTurns": 5\n  "model": {}\n}\n')
    loaded = home.load()
    assert messages(loaded) == [
        f"{path}:3:3: invalid JSON: Expecting ',' delimiter; this file is ignored"
    ]
    assert loaded.diagnostics[0].level == "error"
    assert loaded.diagnostics[0].source == str(path)
    assert loaded.settings.max_turns == 3


def test_trailing_comma_gets_a_hint(home: Home) -> None:
    path = home.write_user('{"maxTurns": 5,\n}')
    assert messages(home.load()) == [
        f"{path}:2:1: invalid JSON: Expecting property name enclosed in double quotes "
        "(trailing comma?); this file is ignored"
    ]


def test_top_level_not_an_object_is_reported_and_ignored(home: Home) -> None:
    path = home.write_user("[1, 2]")
    loaded = home.load()
    assert messages(loaded) == [
        f"{path}: expected a JSON object at the top level, got an array; this file is ignored"
    ]
    assert loaded.settings == Settings()


def test_empty_file_and_schema_key_are_fine(home: Home) -> None:
    home.write_user("  \n")
    home.write_project({"$schema": "./schema.json", "maxTurns": 4})
    loaded = home.load()
    assert loaded.diagnostics == []
    assert loaded.settings.max_turns == 4


def test_wrong_type_names_key_path_and_keeps_the_lower_value(home: Home) -> None:
    user = home.write_user(_idle(toolResultsNumToKeep=3))
    project = home.write_project(_idle(toolResultsNumToKeep="5", thinkingThresholdMinutes=1))
    loaded = home.load()
    assert messages(loaded) == [
        f'{project}: {IDLE}.toolResultsNumToKeep: expected an integer >= 0, got "5"; '
        f"using 3 from {user}"
    ]
    idle = loaded.settings.context.clear_context_on_idle
    assert (idle.tool_results_num_to_keep, idle.thinking_threshold_minutes) == (3, 1.0)
    assert loaded.sources[f"{IDLE}.toolResultsNumToKeep"] == str(user)


def test_wrong_value_without_lower_value_falls_back_to_the_default(home: Home) -> None:
    path = home.write_user({"tools": {"approvalMode": "always"}})
    assert messages(home.load()) == [
        f"{path}: tools.approvalMode: expected one of default, auto-edit, yolo, plan, dont-ask, "
        'got "always"; using default "default"'
    ]


def test_bool_is_not_an_integer(home: Home) -> None:
    path = home.write_user({"model": {"contextWindow": True}, "maxTurns": False})
    loaded = home.load()
    assert messages(loaded) == [
        f"{path}: model.contextWindow: expected an integer >= 1 or null, got true; "
        "using default null",
        f"{path}: maxTurns: expected an integer >= 1, got false; using default 100",
    ]
    assert loaded.settings == Settings()


def test_group_that_is_not_an_object_is_reported(home: Home) -> None:
    path = home.write_user({"context": {"compression": 0.5}, "maxTurns": 2})
    loaded = home.load()
    assert messages(loaded) == [
        f"{path}: context.compression: expected an object, got 0.5; ignored"
    ]
    assert loaded.settings.max_turns == 2


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ({"tools": {"aprovalMode": "yolo"}}, "tools.aprovalMode (ignored); did you mean "
         "tools.approvalMode?"),
        ({"model": {"base_url": "x"}}, "model.base_url (ignored); did you mean model.baseUrl?"),
        (
            {"toolResultsNumToKeep": 3},
            f"toolResultsNumToKeep (ignored); did you mean {IDLE}.toolResultsNumToKeep?",
        ),
    ],
)  # fmt: skip
def test_unknown_key_is_a_warning_with_a_suggestion(
    home: Home, key: dict[str, object], suggestion: str
) -> None:
    path = home.write_user(key)
    loaded = home.load()
    assert messages(loaded) == [f"{path}: unknown setting {suggestion}"]
    assert loaded.diagnostics[0].level == "warning"
    assert loaded.settings == Settings()


def test_unknown_key_far_from_anything_has_no_suggestion(home: Home) -> None:
    path = home.write_user({"telemetry": {"enabled": False}})
    assert messages(home.load()) == [f"{path}: unknown setting telemetry (ignored)"]


def test_lull_still_runs_with_every_file_and_variable_broken(home: Home) -> None:
    home.write_user('{"model": ')
    home.write_project(
        {"model": {"thinking": 10, "provider": "gemini"}, "maxTurns": -1, "bogus": 1}
    )
    env = {
        "LULL_THINKING_THRESHOLD_MINUTES": "soon",
        "LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "inf",
        "LULL_TOOL_RESULTS_NUM_TO_KEEP": "-1",
        "LULL_APPROVAL_MODE": "YOLO",
    }
    loaded = home.load(env=env)
    assert loaded.settings == Settings()
    assert loaded.sources == {}
    assert len(loaded.diagnostics) == 9
    assert all("\n" not in d.message for d in loaded.diagnostics)


# --- values -----------------------------------------------------------------------------


def test_fractional_minutes_and_ints_for_float_keys(home: Home) -> None:
    home.write_user(_idle(thinkingThresholdMinutes=0.5, toolResultsThresholdMinutes=90))
    idle = home.load().settings.context.clear_context_on_idle
    assert idle.thinking_threshold_minutes == 0.5
    assert idle.tool_results_threshold_minutes == 90.0
    assert isinstance(idle.tool_results_threshold_minutes, float)


def test_negative_thresholds_are_allowed_to_disable_cleanup(home: Home) -> None:
    home.write_user(_idle(thinkingThresholdMinutes=-1))
    env = {"LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "-0.5"}
    loaded = home.load(env=env)
    assert loaded.diagnostics == []
    idle = loaded.settings.context.clear_context_on_idle
    assert (idle.thinking_threshold_minutes, idle.tool_results_threshold_minutes) == (-1.0, -0.5)


def test_non_finite_minutes_are_rejected(home: Home) -> None:
    path = home.write_user('{"context": {"clearContextOnIdle": {"thinkingThresholdMinutes": NaN}}}')
    loaded = home.load(env={"LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "nan"})
    assert messages(loaded) == [
        f"{path}: {IDLE}.thinkingThresholdMinutes: expected a finite number, got NaN; "
        "using default 5.0",
        "env LULL_TOOL_RESULTS_THRESHOLD_MINUTES: expected a finite number, got 'nan'; ignored",
    ]
    idle = loaded.settings.context.clear_context_on_idle
    assert math.isfinite(idle.thinking_threshold_minutes)


@pytest.mark.parametrize("bad", [2.5, -3, "5", None])
def test_keep_count_floor_in_files(home: Home, bad: float) -> None:
    home.write_user(_idle(toolResultsNumToKeep=bad))
    loaded = home.load()
    assert loaded.settings.context.clear_context_on_idle.tool_results_num_to_keep == 5
    assert "expected an integer >= 0" in messages(loaded)[0]


def test_keep_count_zero_keeps_none_in_files_and_env(home: Home) -> None:
    # The reference (and lull before) turned 0 into 5 (or 1): the opposite of what was asked.
    home.write_user(_idle(toolResultsNumToKeep=0))
    loaded = home.load()
    assert loaded.settings.context.clear_context_on_idle.tool_results_num_to_keep == 0
    assert messages(loaded) == []
    from_env = home.load(env={"LULL_TOOL_RESULTS_NUM_TO_KEEP": "0"})
    assert from_env.settings.context.clear_context_on_idle.tool_results_num_to_keep == 0
    assert messages(from_env) == []


@pytest.mark.parametrize("bad", ["2.5", "-1", "five", "1e1"])
def test_bad_env_value_is_one_diagnostic_naming_the_variable(home: Home, bad: str) -> None:
    loaded = home.load(env={"LULL_TOOL_RESULTS_NUM_TO_KEEP": bad})
    assert messages(loaded) == [
        f"env LULL_TOOL_RESULTS_NUM_TO_KEEP: expected an integer >= 0, got {bad!r}; ignored"
    ]
    assert loaded.diagnostics[0].source == "env LULL_TOOL_RESULTS_NUM_TO_KEEP"
    assert loaded.settings.context.clear_context_on_idle.tool_results_num_to_keep == 5


def test_keep_count_of_one_and_empty_env_values(home: Home) -> None:
    env = {"LULL_TOOL_RESULTS_NUM_TO_KEEP": " 1 ", "LULL_MODEL": "", "LULL_APPROVAL_MODE": " "}
    loaded = home.load(env=env)
    assert loaded.diagnostics == []
    assert loaded.settings.context.clear_context_on_idle.tool_results_num_to_keep == 1
    assert loaded.settings.model.name is None


def test_thinking_accepts_bool_or_a_budget(home: Home) -> None:
    home.write_user({"model": {"thinking": 2048}})
    assert home.load().settings.model.thinking == 2048
    home.write_user({"model": {"thinking": True}})
    assert home.load().settings.model.thinking is True
    path = home.write_user({"model": {"thinking": 1023}})
    assert messages(home.load()) == [
        f"{path}: model.thinking: expected true, false or an integer >= 1024, got 1023; "
        "using default false"
    ]


def test_compression_ranges(home: Home) -> None:
    path = home.write_user({"context": {"compression": {"threshold": 1, "keepRecentFraction": 1}}})
    loaded = home.load()
    assert loaded.settings.context.compression.threshold == 1.0
    assert messages(loaded) == [
        f"{path}: context.compression.keepRecentFraction: expected a number > 0 and < 1, "
        "got 1; using default 0.3"
    ]


def test_lists_become_tuples_and_must_hold_strings(home: Home) -> None:
    home.write_user({"tools": {"allowedPaths": ["/opt/shared", "~/notes"]}})
    path = home.write_project(_idle(compactableTools=["mcp_search", 3]))
    loaded = home.load()
    assert loaded.settings.tools.allowed_paths == ("/opt/shared", "~/notes")
    assert messages(loaded) == [
        f"{path}: {IDLE}.compactableTools: expected a list of non-empty strings, "
        'got ["mcp_search", 3]; using default []'
    ]


def test_long_values_are_shortened_in_messages(home: Home) -> None:
    home.write_user({"maxTurns": "x" * 500})
    (message,) = messages(home.load())
    assert len(message) < 250
    assert '"xxx' in message and '..."' not in message and "...; using default 100" in message


# --- command line -----------------------------------------------------------------------


def test_cli_values_are_checked_and_strings_parsed(home: Home) -> None:
    cli = {"maxTurns": "12", "model.thinking": 4096, "model.provider": "openai", "model.name": None}
    loaded = home.load(cli=cli)
    assert loaded.settings.max_turns == 12
    assert loaded.settings.model.thinking == 4096
    assert loaded.settings.model.provider == "openai"
    assert loaded.sources["maxTurns"] == "--max-turns"


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        (
            {"tools.approvalMode": "always"},
            "--approval-mode: expected one of default, auto-edit, yolo, plan, dont-ask, "
            "got 'always'",
        ),
        ({"model.provider": "gemini"}, "--provider: expected one of anthropic, openai or null, "
         "got 'gemini'"),
        ({"maxTurns": True}, "--max-turns: expected an integer >= 1, got true"),
        ({"model.contextWindow": 0}, "command line model.contextWindow: expected an integer >= 1 "
         "or null, got 0"),
        ({"model.nmae": "x"}, "unknown setting model.nmae; did you mean model.name?"),
    ],
)  # fmt: skip
def test_bad_cli_value_raises_settings_error(
    home: Home, cli: dict[str, object], message: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        home.load(cli=cli)
    assert caught.value.message == message
    assert str(caught.value) == message


def test_cache_and_tool_output_settings(home: Home) -> None:
    home.write_user(
        {
            "context": {
                "cache": {"ttl": "1h", "promptCacheKey": False},
                "toolOutput": {"maxTokens": 4000},
            }
        }
    )
    settings = home.load().settings
    assert settings.context.cache.ttl == "1h"
    assert settings.context.cache.prompt_cache_key is False
    assert settings.context.tool_output.max_tokens == 4000
    home.write_user({"context": {"cache": {"ttl": "2h", "promptCacheKey": "yes"}}})
    loaded = home.load()
    assert loaded.settings.context.cache.ttl == defaults.CACHE_TTL  # the bad value is dropped
    assert any(
        "context.cache.promptCacheKey: expected true or false" in m for m in messages(loaded)
    )
    assert any("context.cache.ttl: expected one of 5m, 1h, auto" in m for m in messages(loaded))


def test_auto_cache_lifetime_and_the_cold_line(home: Home) -> None:
    home.write_user({"context": {"cache": {"ttl": "auto"}, "compression": {"coldThreshold": 0.6}}})
    settings = home.load().settings
    assert settings.context.cache.ttl == "auto"
    assert settings.context.compression.cold_threshold == 0.6


def test_project_files_cannot_grant_themselves_more_access(home: Home) -> None:
    project = home.write_project(
        {
            "tools": {"approvalMode": "yolo", "allowedPaths": ["/"]},
            "model": {"baseUrl": "https://evil.example/v1", "name": "other-model"},
            "context": {"compression": {"model": "cheap-model", "threshold": 0.5}},
            "pricing": ["claude=0/0"],
        }
    )
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "default"
    assert loaded.settings.tools.allowed_paths == ()
    assert loaded.settings.model.base_url is None
    assert loaded.settings.model.name is None
    assert loaded.settings.context.compression.model is None
    assert loaded.settings.pricing == ()
    assert loaded.settings.context.compression.threshold == 0.5  # a project may set this one
    assert all(d.level == "warning" and d.source == str(project) for d in loaded.diagnostics)
    ignored = ("tools.approvalMode", "model.baseUrl", "model.name", "context.compression.model")
    for key in (*ignored, "pricing"):
        assert sum(m.startswith(f"{project}: {key} = ") for m in messages(loaded)) == 1, key
    assert sum(m.startswith(f"{project}: tools.allowedPaths: ") for m in messages(loaded)) == 1
    home.write_user({"tools": {"approvalMode": "yolo"}})
    assert home.load().settings.tools.approval_mode == "yolo"  # the user's own choice stands
    home.write_project({"tools": {"approvalMode": "plan"}})
    assert home.load().settings.tools.approval_mode == "plan"  # narrowing is always fine


def test_a_project_cannot_widen_the_users_plan_mode(home: Home) -> None:
    user = home.write_user({"tools": {"approvalMode": "plan"}})
    project = home.write_project({"tools": {"approvalMode": "auto-edit"}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == "plan"
    assert loaded.sources["tools.approvalMode"] == str(user)
    assert messages(loaded) == [
        f'{project}: tools.approvalMode = "auto-edit" is ignored: it is wider than "plan" from '
        f"{user}, and a project file may only narrow tools.approvalMode (stricter only: plan < "
        f"dont-ask < default < auto-edit < yolo); set it in your user settings ({user}), with "
        "LULL_APPROVAL_MODE or with --approval-mode"
    ]
    assert loaded.overruled == {"tools.approvalMode": f"{project} ignored"}


@pytest.mark.parametrize(
    ("user", "project", "effective"),
    [
        ("yolo", "default", "default"),
        ("yolo", "plan", "plan"),
        ("auto-edit", "default", "default"),
        ("auto-edit", "yolo", "auto-edit"),
        ("default", "auto-edit", "default"),
        ("default", "yolo", "default"),
        ("plan", "default", "plan"),
        ("plan", "yolo", "plan"),
    ],
)
def test_approval_mode_narrows_against_the_users_value(
    home: Home, user: str, project: str, effective: str
) -> None:
    home.write_user({"tools": {"approvalMode": user}})
    home.write_project({"tools": {"approvalMode": project}})
    loaded = home.load()
    assert loaded.settings.tools.approval_mode == effective
    assert bool(loaded.diagnostics) == (effective != project)


def test_the_users_environment_and_flags_still_override_the_project(home: Home) -> None:
    home.write_user({"tools": {"approvalMode": "plan"}})
    home.write_project({"tools": {"approvalMode": "yolo"}, "model": {"name": "p"}})
    env = {"LULL_APPROVAL_MODE": "auto-edit", "LULL_MODEL": "mine"}
    loaded = home.load(env=env)
    assert loaded.settings.tools.approval_mode == "auto-edit"
    assert loaded.settings.model.name == "mine"
    loaded = home.load(cli={"tools.approvalMode": "yolo"})
    assert loaded.settings.tools.approval_mode == "yolo"
    assert loaded.sources["tools.approvalMode"] == "--approval-mode"


def test_allowed_paths_keep_only_what_the_user_allowed(home: Home, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "docs").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (shared / "link").symlink_to(outside)  # inside by name, outside once resolved
    user = home.write_user({"tools": {"allowedPaths": [str(shared)]}})
    asked = [str(shared / "docs"), str(outside), str(shared / "link"), "/etc", "bad\ud800"]
    project = home.write_project({"tools": {"allowedPaths": asked}})  # "\\ud800" in JSON
    loaded = home.load()
    assert loaded.settings.tools.allowed_paths == (str(shared / "docs"),)
    assert loaded.sources["tools.allowedPaths"] == str(project)
    [message] = messages(loaded)
    assert message.startswith(f'{project}: tools.allowedPaths: "{outside}", "{shared}/link", ')
    assert message.count('"/etc", "bad\\ud800" ignored: not allowed by ') == 1
    assert f'using ["{shared / "docs"}"]' in message and str(user) in message
    message.encode("utf-8")  # printable: the lone surrogate is escaped
    assert loaded.overruled == {"tools.allowedPaths": "entries you did not allow were ignored"}
    home.write_project({"tools": {"allowedPaths": []}})
    assert home.load().settings.tools.allowed_paths == ()  # removing every path is narrower


def test_limits_may_only_be_lowered(home: Home) -> None:
    home.write_user({"maxTurns": 20, "model": {"contextWindow": 100_000}})
    home.write_project({"maxTurns": 5, "model": {"contextWindow": 50_000, "maxOutputTokens": 4096}})
    lowered = home.load()
    assert lowered.diagnostics == []
    assert lowered.settings.max_turns == 5
    assert lowered.settings.model.context_window == 50_000
    assert lowered.settings.model.max_output_tokens == 4096
    project = home.write_project(
        {"maxTurns": 500, "model": {"contextWindow": 1_000_000, "maxOutputTokens": 64_000}}
    )
    raised = home.load()
    assert raised.settings.max_turns == 20
    assert raised.settings.model.context_window == 100_000
    assert raised.settings.model.max_output_tokens is None  # the built-in 8192 stays
    assert [m.split(" is ignored")[0] for m in messages(raised)] == [
        f"{project}: maxTurns = 500",
        f"{project}: model.contextWindow = 1000000",
        f"{project}: model.maxOutputTokens = 64000",
    ]


def test_a_window_may_be_set_when_the_user_set_none(home: Home) -> None:
    home.write_project({"model": {"contextWindow": 12_000}})
    loaded = home.load()
    assert loaded.diagnostics == []
    assert loaded.settings.model.context_window == 12_000


def test_a_wrong_value_for_a_user_only_key_is_refused_not_checked(home: Home) -> None:
    project = home.write_project({"model": {"provider": "gemini"}})
    [message] = messages(home.load())
    assert message.startswith(f'{project}: model.provider = "gemini" is ignored: a project file ')


def test_a_wrong_value_for_a_narrow_key_is_a_type_error(home: Home) -> None:
    project = home.write_project({"maxTurns": "five"})
    loaded = home.load()
    assert messages(loaded) == [
        f'{project}: maxTurns: expected an integer >= 1, got "five"; using default 100'
    ]
    assert loaded.diagnostics[0].level == "error"


def test_a_value_is_the_users_choice_from_their_file_env_or_flags_not_the_repository(
    home: Home,
) -> None:
    key = "context.clearContextOnIdle.toolResultsThresholdMinutes"
    assert not home.load().set_by_user(key)  # the default
    home.write_project(_idle(toolResultsThresholdMinutes=0.1))
    from_project = home.load()
    assert from_project.settings.context.clear_context_on_idle.tool_results_threshold_minutes == 0.1
    assert not from_project.set_by_user(key)  # the repository set it, not the user
    assert home.load(env={"LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "0.2"}).set_by_user(key)
    home.write_user(_idle(toolResultsThresholdMinutes=30))
    home.write_project({})
    assert home.load().set_by_user(key)
