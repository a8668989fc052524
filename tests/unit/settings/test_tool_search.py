"""tools.toolSearch: Claude Code's ENABLE_TOOL_SEARCH values, from files and the environment,
and a clear message for anything else."""

from __future__ import annotations

import pytest

from lull.model.tool_search import DEFAULT_TOOL_SEARCH, ToolSearchSetting, parse_tool_search
from lull.settings.checks import Invalid
from lull.settings.tool_search import ToolSearch
from tests.unit.settings.conftest import Home


@pytest.mark.parametrize(
    ("value", "setting"),
    [
        (True, ToolSearchSetting("on")),
        (False, ToolSearchSetting("off")),
        ("true", ToolSearchSetting("on")),
        ("FALSE", ToolSearchSetting("off")),
        ("auto", ToolSearchSetting("auto", 10)),
        ("auto:5", ToolSearchSetting("auto", 5)),
        ("auto:0", ToolSearchSetting("auto", 0)),
        ("auto:100", ToolSearchSetting("auto", 100)),
    ],
)
def test_claude_codes_values(value: object, setting: ToolSearchSetting) -> None:
    assert parse_tool_search(value) == setting
    assert parse_tool_search(setting.to_json()) == setting  # written back as it reads


def test_the_default_is_auto_at_ten_percent() -> None:
    assert ToolSearchSetting("auto", 10) == DEFAULT_TOOL_SEARCH
    assert DEFAULT_TOOL_SEARCH.to_json() == "auto"
    assert ToolSearchSetting("auto", 5).to_json() == "auto:5"


@pytest.mark.parametrize("bad", ["auto:101", "auto:", "auto:-1", "maybe", 10, None, ["auto"]])
def test_anything_else_says_what_fits(bad: object) -> None:
    with pytest.raises(Invalid, match='true, false, "auto" or "auto:N"'):
        ToolSearch().check(bad)


def test_the_environment_variable_wins_over_files_and_a_bad_one_is_named(home: Home) -> None:
    home.write_user({"tools": {"toolSearch": False}})
    assert home.load().settings.tools.tool_search == ToolSearchSetting("off")
    loaded = home.load(env={"ENABLE_TOOL_SEARCH": "auto:5"})
    assert loaded.settings.tools.tool_search == ToolSearchSetting("auto", 5)
    assert loaded.sources["tools.toolSearch"] == "env ENABLE_TOOL_SEARCH"
    bad = home.load(env={"ENABLE_TOOL_SEARCH": "sometimes"})
    assert bad.settings.tools.tool_search == ToolSearchSetting("off")
    assert [d.message for d in bad.diagnostics] == [
        'env ENABLE_TOOL_SEARCH: expected true, false, "auto" or "auto:N" (N a percentage '
        "from 0 to 100), got 'sometimes'; ignored"
    ]


def test_a_project_may_set_it(home: Home) -> None:
    home.write_project({"tools": {"toolSearch": "auto:2"}})
    loaded = home.load()
    assert loaded.settings.tools.tool_search == ToolSearchSetting("auto", 2)
    assert loaded.diagnostics == []
