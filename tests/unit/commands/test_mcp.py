"""/mcp shows servers, status, tools and the last error; /trust starts project servers now."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from lull.commands import run_command
from lull.mcp.manager import McpManager
from lull.model.mcp import McpServerConfig
from lull.runtime import Runtime

ROOT = Path(__file__).resolve().parents[3]


def _server(name: str, *flags: str) -> McpServerConfig:
    return McpServerConfig(
        name, command=sys.executable, args=("-m", "tests.mcp.server", *flags), cwd=str(ROOT),
        timeout_seconds=15,
    )  # fmt: skip


def test_without_servers_it_says_how_to_add_one(runtime: Runtime) -> None:
    assert "lull mcp add" in run_command(runtime, "/mcp").lines[0]


async def test_status_tools_errors_and_trust(runtime: Runtime) -> None:
    from lull.settings.workspaces import is_trusted

    project = dataclasses.replace(_server("proj"), scope="project", source="/w/.mcp.json")
    claudes = dataclasses.replace(
        _server("bad", "--fail-start"), source="~/.claude.json, user scope"
    )
    servers = (_server("good"), claudes, project)
    workspace = runtime.workspace
    manager = McpManager(
        servers, runtime.agent.tools.registry, workspace, "anthropic",
        trusted=lambda: is_trusted(workspace),
    )  # fmt: skip
    manager.wait = True
    runtime.mcp = manager
    runtime.agent.tools.sources.append(manager)
    try:
        runtime.start_tools(wait=True)
        await manager.settle()
        lines = run_command(runtime, "/mcp").lines
        assert lines[0] == "good: ready · 7 tools · stdio (user)"
        assert lines[1].startswith("bad: failed · 0 tools") and "last error" in lines[2]
        assert lines[1].endswith("(user: ~/.claude.json, user scope)")  # where it came from
        assert "it exited" in lines[2] and "Connection closed" not in lines[2]
        assert lines[3:5] == ("  its stderr ends:", "    fatal: the database is not there")
        assert "proj: needs trust" in lines[5] and "/trust starts it" in lines[6]
        granted = run_command(runtime, "/trust").lines[0]
        assert "starting its MCP servers now: proj" in granted
        await manager.settle()
        assert "proj: ready · 7 tools" in run_command(runtime, "/mcp").lines[-1]
    finally:
        await runtime.stop_tools()
