"""MCP tools and sub-agents through the official SDKs against the strict fake.

An MCP server whose tool names and schemas the APIs would reject (a dot in a name, a 70-
character name, a top-level ``anyOf``) is offered in a form both accept; without the
adaptation the fake refuses the request as the real APIs do. A sub-agent's exploration never
reaches the parent's next request, and its usage adds up with the parent's.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lull.context.estimate import estimate_spec_tokens
from lull.engine.subagents.task import SubagentSetup, TaskTool
from lull.mcp.manager import McpManager
from lull.mcp.tool import McpTool
from lull.model.events import RequestFinished, TurnFailed, TurnFinished
from lull.model.mcp import McpServerConfig
from lull.model.provider import Usage
from lull.tools.builtin.tool_search import ToolSearchTool
from lull.tools.deferral import DeferralPolicy
from lull.ui.printer import RunResult
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import AgentFactory, run

ROOT = Path(__file__).resolve().parents[2]
ODD = McpServerConfig(
    "odd",
    command=sys.executable,
    args=("-m", "tests.mcp.server", "--odd-schema"),
    cwd=str(ROOT),
    include_tools=(
        "search.files",
        "a_tool_with_a_name_that_is_far_too_long_for_any_provider_to_take_x",
    ),
    timeout_seconds=15,
)


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_adapted_mcp_tools_are_accepted_and_called(
    make_agent: AgentFactory, fake: FakeServer, vendor: str, tmp_path: Path
) -> None:
    agent = make_agent(vendor)
    provider = "anthropic" if vendor == "anthropic" else "openai"
    manager = McpManager((ODD,), agent.tools.registry, tmp_path, provider, trusted=lambda: True)
    manager.wait = True
    agent.tools.sources.append(manager)
    fake.script(
        Reply(tool_calls=[ToolUse("mcp__odd__search_files", {"query": "todo"})]),
        Reply(text="found it"),
    )
    try:
        events = await run(agent, "search")
    finally:
        await manager.aclose()
    assert isinstance(events[-1], TurnFinished), events[-1]
    results = [r.content for m in agent.session.transcript for r in m.tool_results]
    assert results == ["found todo"]
    names = [t.name for t in agent.shape().tools]
    assert "mcp__odd__search_files" in names and all(len(n) <= 64 for n in names)


async def test_an_unadapted_schema_is_refused_like_the_real_api(
    make_agent: AgentFactory, fake: FakeServer, tmp_path: Path
) -> None:
    agent = make_agent("anthropic")
    manager = McpManager((ODD,), agent.tools.registry, tmp_path, "anthropic", trusted=lambda: True)
    manager.wait = True
    try:
        manager.start()
        await manager.settle()
        connection = manager.connections[0]
        remote = next(t for t in connection.tools or () if t.name == "search.files")
        agent.tools.registry.add(McpTool(connection, remote, "raw_search", remote.input_schema))
        events = await run(agent, "search")
    finally:
        await manager.aclose()
    assert isinstance(events[-1], TurnFailed)
    assert "anyOf at the top level" in events[-1].message


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_the_parent_gets_only_the_sub_agents_answer_and_costs_add_up(
    vendor: str, make_agent: AgentFactory, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("secret: 42\n" + "filler line\n" * 50)
    agent = make_agent(vendor)
    assert agent.session.path is not None
    from lull.engine.sessions.store import SessionStore

    store = SessionStore(agent.session.path.parent.parent, workspace)
    setup = SubagentSetup(store, lambda model: agent.provider, agent.config)
    agent.tools.registry.add(TaskTool(setup, lambda: agent.tools, lambda: agent.session))
    fake.script(
        Reply(tool_calls=[ToolUse("task", {"description": "find", "prompt": "find the secret"})]),
        Reply(tool_calls=[ToolUse("read_file", {"path": "notes.txt"})]),
        Reply(text="ANSWER: secret is 42"),
        Reply(text="The secret is 42."),
    )
    events = await run(agent, "what is the secret?")
    assert isinstance(events[-1], TurnFinished)
    final = fake.requests[-1]
    text = str(final["messages"])
    assert "ANSWER: secret is 42" in text and "filler line" not in text
    result = RunResult()
    for event in events:
        result.take(event)
    own = sum((e.usage for e in events if isinstance(e, RequestFinished)), Usage())
    child = sum(agent.session.record.subagent_usage_by_model.values(), Usage())
    assert child.output > 0 and result.usage == own + child
    assert result.num_requests == 2  # the parent's own; the child's two count in usage and cost


def _tool_names(body: dict[str, Any]) -> list[str]:
    """The tool names of a request body, either API."""
    return [tool.get("name") or tool["function"]["name"] for tool in body.get("tools", [])]


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_a_deferred_tool_is_loaded_then_called_and_the_next_request_reads_the_cache(
    make_agent: AgentFactory, fake: FakeServer, vendor: str, tmp_path: Path
) -> None:
    agent = make_agent(vendor)
    registry = agent.tools.registry
    registry.deferred.policy = DeferralPolicy("on", 0, estimate_spec_tokens)
    registry.add(ToolSearchTool(registry.deferred))
    provider = "anthropic" if vendor == "anthropic" else "openai"
    manager = McpManager((ODD,), registry, tmp_path, provider, trusted=lambda: True)
    manager.wait = True
    agent.tools.sources.append(manager)
    fake.cache_min_default = 1
    fake.script(
        Reply(tool_calls=[ToolUse("tool_search", {"query": "search files"})]),
        Reply(tool_calls=[ToolUse("mcp__odd__search_files", {"query": "todo"})]),
        Reply(text="found it"),
    )
    try:
        events = await run(agent, "search")
    finally:
        await manager.aclose()
    assert isinstance(events[-1], TurnFinished), events[-1]
    results = [r.content for m in agent.session.transcript for r in m.tool_results]
    assert results[1] == "found todo"
    first, second, third = (_tool_names(body) for body in fake.requests)
    assert "tool_search" in first and not any(n.startswith("mcp__") for n in first)
    assert second == [*first, "mcp__odd__search_files"] and third == second
    usage = [e.usage for e in events if isinstance(e, RequestFinished)]
    assert usage[2].cache_read > 0  # one rewrite for the load, then the cache holds again
