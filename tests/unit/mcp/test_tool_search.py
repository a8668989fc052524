"""Deferred MCP tool schemas through the whole runtime (settings -> runtime -> a real stdio
server -> the turn loop on the scripted provider): which tools the requests offer, loading with
tool_search or by calling, the cache-break detector's verdict, /mcp, and a resume that sends
the very tool list the session sent before."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from lull.commands import run_command
from lull.context.cachebreak import find_detector
from lull.mcp.listing import RemoteTool
from lull.mcp.manager import McpManager
from lull.model.events import ToolFinished
from lull.model.provider import ModelRequest
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.runtime import Runtime
from tests.support import demo_runtime, run

ROOT = Path(__file__).resolve().parents[3]
ECHO = "mcp__srv__echo"
ADD = "mcp__srv__add"


def _server(**fields: Any) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.server"],
        "cwd": str(ROOT),
        "timeoutSeconds": 15,
        **fields,
    }


def _workspace(
    tmp_path: Path, tool_search: object, servers: dict[str, Any] | None = None, **more: Any
) -> Path:
    workspace = tmp_path / "ws"
    (workspace / ".lull").mkdir(parents=True)
    settings = {
        "mcpServers": servers or {"srv": _server()},
        "tools": {"toolSearch": tool_search},
        **more,
    }
    (workspace / ".lull" / "settings.json").write_text(json.dumps(settings))
    return workspace


async def _started(workspace: Path, provider: ScriptedProvider, **options: Any) -> Runtime:
    options.setdefault("approval_mode", "yolo")
    runtime = demo_runtime(workspace, provider, allow_project_mcp=True, **options)
    runtime.start_tools(wait=True)
    return runtime


async def _one_turn(
    workspace: Path, provider: ScriptedProvider, *, prompt: str = "hi", **options: Any
) -> Runtime:
    """One turn of a runtime with its MCP servers started, stopped again afterwards."""
    runtime = await _started(workspace, provider, **options)
    try:
        await run(runtime.agent, prompt)
    finally:
        await runtime.stop_tools()
    return runtime


def _names(request: ModelRequest) -> list[str]:
    return [spec.name for spec in request.tools]


def _mcp(request: ModelRequest) -> list[str]:
    return [name for name in _names(request) if name.startswith("mcp__")]


async def test_deferred_tools_are_listed_then_loaded_at_the_end_and_a_resume_sends_them(
    tmp_path: Path,
) -> None:
    workspace = _workspace(tmp_path, True)
    provider = ScriptedProvider()
    provider.script(
        ScriptedReply(tool_calls=[ScriptedCall(TOOL_SEARCH_TOOL, {"query": f"select:{ECHO}"})]),
        ScriptedReply(tool_calls=[ScriptedCall(ECHO, {"text": "hi"})]),
        ScriptedReply(text="done"),
    )
    runtime = await _started(workspace, provider)
    try:
        events = await run(runtime.agent, "say hi")
        mcp_lines = run_command(runtime, "/mcp").lines
        context_lines = run_command(runtime, "/context").lines
    finally:
        await runtime.stop_tools()
    first, second, third = provider.requests
    assert _mcp(first) == [] and _names(first)[-1] == TOOL_SEARCH_TOOL
    search = next(spec for spec in first.tools if spec.name == TOOL_SEARCH_TOOL)
    assert f"- {ECHO}: Say the text back." in search.description
    assert f"- {ADD}: Add two numbers." in search.description
    assert _names(second)[-1] == ECHO and _mcp(second) == [ECHO]  # appended, nothing else
    assert _names(second)[:-1] == _names(first)  # the tools before it stay as they were
    assert second.tools[-1].parameters["required"] == ["text"]  # the full schema
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert f"{ECHO}(text: string): Say the text back." in results[0].content
    assert results[1].content == "echo: hi" and not results[1].is_error
    assert _names(third) == _names(second)
    detector = find_detector(runtime.agent.request_hooks)
    assert detector is not None and detector.unexpected == []
    (brk,) = detector.breaks
    assert brk.block == f"tool {ECHO}" and brk.change == "added"
    assert "tool_search loaded it" in brk.cause
    assert runtime.agent.session.loaded_tools == (ECHO,)
    assert f"srv: ready · 7 tools, 6 deferred · stdio (project: {workspace}" in mcp_lines[0]
    assert mcp_lines[1].startswith("  deferred (tool_search loads them): add, big, crash")
    assert mcp_lines[2] == "  loaded: echo"
    assert mcp_lines[3] == "tool search: on (every MCP tool is deferred)"
    assert "6 deferred tools keep ~" in mcp_lines[4]
    assert any(line.startswith("deferred tools: 6 offered by name only") for line in context_lines)

    session_id = runtime.agent.session.id
    runtime.close()
    again = ScriptedProvider()
    again.script(ScriptedReply(text="back"))
    resumed = await _started(workspace, again, resume=session_id)
    try:
        await run(resumed.agent, "again")
    finally:
        await resumed.stop_tools()
    assert _names(again.requests[0]) == _names(third)  # the same tools, in the same order


async def test_a_call_to_a_tool_never_loaded_runs_and_loads_it(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, True)
    provider = ScriptedProvider()
    provider.script(
        ScriptedReply(tool_calls=[ScriptedCall(ADD, {"a": 2})]),  # b is missing
        ScriptedReply(tool_calls=[ScriptedCall(ECHO, {"text": "direct"})]),
        ScriptedReply(text="ok"),
    )
    runtime = await _started(workspace, provider)
    try:
        events = await run(runtime.agent, "go")
    finally:
        await runtime.stop_tools()
    wrong, right = [e.result for e in events if isinstance(e, ToolFinished)]
    assert wrong.is_error and "'b'" in wrong.content
    assert f"{ADD} was not loaded yet; its parameters: " in wrong.content
    assert '"b": {' in wrong.content  # the schema the model needs to call it right
    assert right.content == "echo: direct" and not right.is_error
    assert _mcp(provider.requests[1]) == [ADD]
    assert _mcp(provider.requests[2]) == [ADD, ECHO]  # in the order they were loaded
    assert runtime.agent.session.loaded_tools == (ADD, ECHO)
    detector = find_detector(runtime.agent.request_hooks)
    assert detector is not None and detector.unexpected == []
    assert "called mcp__srv__add before loading it" in detector.breaks[0].cause


async def test_auto_defers_only_past_its_share_of_the_window(tmp_path: Path) -> None:
    roomy = _workspace(tmp_path / "roomy", "auto")  # 10% of the demo model's window
    provider = ScriptedProvider()
    provider.script(ScriptedReply(text="a"))
    runtime = await _started(roomy, provider)
    try:
        await run(runtime.agent, "hi")
        status = run_command(runtime, "/mcp").lines
    finally:
        await runtime.stop_tools()
    assert len(_mcp(provider.requests[0])) == 7
    assert TOOL_SEARCH_TOOL not in _names(provider.requests[0])  # nothing is deferred
    assert "offered in full" in status[-1] and "(the threshold: ~" in status[-1]

    tight = _workspace(tmp_path / "tight", "auto:1", model={"contextWindow": 20_000})
    provider = ScriptedProvider()
    provider.script(ScriptedReply(text="b"))
    await _one_turn(tight, provider)
    assert _mcp(provider.requests[0]) == [] and TOOL_SEARCH_TOOL in _names(provider.requests[0])


async def test_always_load_servers_are_never_deferred(tmp_path: Path) -> None:
    servers = {"pinned": _server(alwaysLoad=True), "srv": _server()}
    workspace = _workspace(tmp_path / "pinned", True, servers)
    provider = ScriptedProvider()
    provider.script(ScriptedReply(text="a"))
    await _one_turn(workspace, provider)
    offered = _mcp(provider.requests[0])
    assert len(offered) == 7 and all(name.startswith("mcp__pinned__") for name in offered)


async def test_false_defers_nothing_and_the_environment_wins_over_a_file(tmp_path: Path) -> None:
    off = _workspace(tmp_path, False)
    provider = ScriptedProvider()
    provider.script(ScriptedReply(text="a"), ScriptedReply(text="b"))
    await _one_turn(off, provider)
    assert len(_mcp(provider.requests[0])) == 7
    assert TOOL_SEARCH_TOOL not in _names(provider.requests[0])

    env = {**os.environ, "ENABLE_TOOL_SEARCH": "true"}
    await _one_turn(off, provider, env=env)
    assert _mcp(provider.requests[1]) == [] and TOOL_SEARCH_TOOL in _names(provider.requests[1])


async def test_excluding_tool_search_defers_nothing(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, True)
    settings = workspace / ".lull" / "settings.json"
    data = json.loads(settings.read_text())
    data["tools"]["exclude"] = [TOOL_SEARCH_TOOL]
    settings.write_text(json.dumps(data))
    provider = ScriptedProvider()
    provider.script(ScriptedReply(text="a"))
    runtime = await _one_turn(workspace, provider)
    assert len(_mcp(provider.requests[0])) == 7
    assert TOOL_SEARCH_TOOL not in _names(provider.requests[0])
    assert not any("tools.exclude" in d.message for d in runtime.loaded.diagnostics)


async def test_a_kept_listing_is_offered_first_and_a_fresh_one_replaces_it_next_turn(
    tmp_path: Path,
) -> None:
    workspace = _workspace(tmp_path, True)
    provider = ScriptedProvider()
    provider.script(ScriptedReply(text="one"), ScriptedReply(text="two"))
    runtime = demo_runtime(workspace, provider, allow_project_mcp=True, approval_mode="yolo")
    manager = runtime.mcp
    assert manager is not None and manager.listings is not None
    config = manager.connections[0].config
    ghost = RemoteTool("ghost", "A tool the server no longer has.", {"type": "object"})
    manager.listings.save(config, [ghost])  # kept by an earlier run of an older server
    runtime.start_tools(wait=True)
    try:
        await run(runtime.agent, "hi")
        await asyncio.wait_for(_listed(manager), 30)  # the server comes up after the request
        await run(runtime.agent, "again")
    finally:
        await runtime.stop_tools()
    first, second = provider.requests
    listing = next(s for s in first.tools if s.name == TOOL_SEARCH_TOOL).description
    assert "- mcp__srv__ghost: A tool the server no longer has." in listing
    assert ECHO not in listing
    listing = next(s for s in second.tools if s.name == TOOL_SEARCH_TOOL).description
    assert "ghost" not in listing and f"- {ECHO}: Say the text back." in listing
    kept = manager.listings.load(config)
    assert kept is not None and "echo" in [tool.name for tool in kept]


async def _listed(manager: McpManager) -> None:
    while manager.connections[0].tools is None:
        await asyncio.sleep(0.05)
