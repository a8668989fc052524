"""tool_search: select by name, keywords ranked by name then description, "+word" required
in the name, a clear answer for names that are no deferred tool, and what the user is told."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lull.model.provider import ToolSpec
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput
from lull.tools.builtin.tool_search import ToolSearchTool, name_words, parse_query
from lull.tools.deferral import DeferralPolicy
from lull.tools.registry import ToolRegistry

TOOLS = {
    "mcp__github__create_issue": "Create a new issue in a GitHub repository.",
    "mcp__github__list_pull_requests": "List pull requests of a repository.",
    "mcp__linear__createIssue": "Create a Linear issue.",
    "mcp__slack__send_message": "Send a message to a channel (issues welcome).",
    "mcp__notes__read": "Read a note.",
}


class Remote(Tool):
    """A stand-in for an MCP tool."""

    def __init__(self, name: str, description: str) -> None:
        self.name = name
        self.description = description
        self.parameters: Mapping[str, Any] = {
            "type": "object",
            "properties": {"title": {"type": "string"}, "labels": {"type": ["array", "null"]}},
            "required": ["title"],
        }

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("ran")


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.deferred.policy = DeferralPolicy("on", 0, lambda spec: 50)
    registry.add(ToolSearchTool(registry.deferred))
    for name, description in TOOLS.items():
        registry.add_deferred(Remote(name, description), description)
    return registry


async def _search(registry: ToolRegistry, tmp_path: Path, **args: Any) -> ToolOutput:
    ctx = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    return await registry.execute("tool_search", args, ctx)


def _offered(registry: ToolRegistry) -> list[str]:
    return [spec.name for spec in registry.specs()][1:]


async def test_select_loads_exactly_those_tools(registry: ToolRegistry, tmp_path: Path) -> None:
    query = "select:mcp__notes__read, mcp__linear__createIssue"
    out = await _search(registry, tmp_path, query=query)
    assert not out.is_error
    assert out.content.splitlines() == [
        "Loaded 2 tools: from your next step on they are in your tool list with their full "
        "parameters; call them directly.",
        "- mcp__notes__read(title: string, labels?: array | null): Read a note.",
        "- mcp__linear__createIssue(title: string, labels?: array | null): Create a Linear issue.",
    ]
    assert out.display == (
        "loaded mcp__notes__read, mcp__linear__createIssue (~100 tokens in each request from "
        "now on; the prompt cache is written anew once)"
    )
    assert _offered(registry) == ["mcp__notes__read", "mcp__linear__createIssue"]
    again = await _search(registry, tmp_path, query="select:mcp__notes__read")
    assert again.content.startswith("Already loaded (call them directly):")
    assert again.display == "already loaded: mcp__notes__read"


async def test_unknown_names_are_said_with_the_nearest(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    out = await _search(registry, tmp_path, query="select:mcp__notes__reed")
    assert out.is_error
    assert "mcp__notes__reed is no deferred tool (did you mean mcp__notes__read?)" in out.content
    mixed = await _search(registry, tmp_path, query="select:read_file,mcp__notes__read")
    assert not mixed.is_error and "read_file is no deferred tool" in mixed.content
    assert _offered(registry) == ["mcp__notes__read"]


async def test_keywords_rank_the_name_first_and_load_at_most_max_results(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    out = await _search(registry, tmp_path, query="create issue", max_results=2)
    # both have "create" and "issue" as words of their name; the slack tool only mentions
    # issues in its description and is left out at two results
    assert _offered(registry) == ["mcp__github__create_issue", "mcp__linear__createIssue"]
    assert "Loaded 2 tools" in out.content


async def test_a_plus_word_must_be_in_the_name(registry: ToolRegistry, tmp_path: Path) -> None:
    await _search(registry, tmp_path, query="+linear create issue")
    assert _offered(registry) == ["mcp__linear__createIssue"]


async def test_no_match_is_no_error_and_loads_nothing(
    registry: ToolRegistry, tmp_path: Path
) -> None:
    out = await _search(registry, tmp_path, query="kubernetes pods")
    assert not out.is_error and "No deferred tool matches 'kubernetes pods'" in out.content
    assert _offered(registry) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"query": "   "}, "the query is empty"),
        ({"query": "select: , "}, '"select:" needs tool names'),
        ({"query": "issue", "max_results": 0}, "max_results must be 1 or more (got 0)"),
    ],
)
async def test_bad_queries_say_what_to_send(
    registry: ToolRegistry, tmp_path: Path, args: dict[str, Any], message: str
) -> None:
    out = await _search(registry, tmp_path, **args)
    assert out.is_error and message in out.content


def test_queries_and_name_words() -> None:
    assert parse_query("select:a,b").names == ("a", "b")
    parsed = parse_query("+GitHub create  issue")
    assert parsed.required == ("github",) and parsed.terms == ("create", "issue")
    assert name_words("mcp__linear__createIssue") == {"linear", "create", "issue"}
    with pytest.raises(ToolError):
        parse_query("+ ")


def test_it_is_read_only_and_its_result_compactable() -> None:
    tool = ToolSearchTool(ToolRegistry().deferred)
    assert tool.read_only and tool.compactable
    assert tool.describe_call({"query": "select:x"}) == "select:x"
    assert ToolSpec(tool.name, tool.description, tool.parameters).description.endswith(
        "Deferred tools:\n"
    )
