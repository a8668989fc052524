"""Which servers start (a project's need trust), their tools in the registry, late servers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lull.mcp.manager import McpManager
from lull.tools.registry import default_registry
from tests.unit.mcp.conftest import StdioServer


async def test_project_servers_wait_for_trust_and_start_when_it_comes(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    trusted = False
    user = stdio_server("mine", include_tools=("echo", "add"))
    project = dataclasses.replace(stdio_server("theirs"), scope="project", source="/r/.mcp.json")
    registry = default_registry()
    builtins = registry.names()
    manager = McpManager((user, project), registry, tmp_path, "anthropic", trusted=lambda: trusted)
    manager.wait = True
    try:
        manager.start()
        assert manager.waiting_for_trust() == ["theirs"]
        assert [s.state for s in manager.statuses()][1] == "needs trust"
        await manager.settle()
        assert registry.names() == [*builtins, "mcp__mine__echo", "mcp__mine__add"]
        assert manager.added_tools["mcp__mine__echo"].startswith("MCP server mine came up")
        trusted = True
        assert manager.trust_changed() == ["theirs"]
        await manager.settle()
        names = registry.names()
        assert names[: len(builtins) + 2] == [*builtins, "mcp__mine__echo", "mcp__mine__add"]
        assert "mcp__theirs__echo" in names[len(builtins) + 2 :]  # appended, prefix unchanged
        status = {s.name: s for s in manager.statuses()}
        assert status["mine"].state == "ready" and status["mine"].tools == 2
        assert status["theirs"].scope == "project" and status["theirs"].tools == 7
    finally:
        await manager.aclose()


async def test_allow_project_starts_them_without_trust_and_disabled_never_starts(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    project = dataclasses.replace(stdio_server("p", exclude_tools=("hang",)), scope="project")
    off = dataclasses.replace(stdio_server("off"), enabled=False)
    registry = default_registry()
    manager = McpManager(
        (project, off), registry, tmp_path, "openai", trusted=lambda: False, allow_project=True
    )
    manager.wait = True
    try:
        manager.start()
        await manager.settle()
        assert "mcp__p__echo" in registry.names() and "mcp__p__hang" not in registry.names()
        assert not any(name.startswith("mcp__off__") for name in registry.names())
        assert {s.name: s.state for s in manager.statuses()} == {"p": "ready", "off": "disabled"}
    finally:
        await manager.aclose()


async def test_a_failed_server_shows_its_error_and_does_not_stop_the_others(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    registry = default_registry()
    servers = (stdio_server("bad", "--fail-start"), stdio_server("good", include_tools=("echo",)))
    manager = McpManager(servers, registry, tmp_path, "anthropic", trusted=lambda: False)
    manager.wait = True
    try:
        manager.start()
        await manager.settle()
        status = {s.name: s for s in manager.statuses()}
        assert status["bad"].state == "failed" and "not there" not in status["bad"].last_error
        assert status["bad"].last_error
        assert "mcp__good__echo" in registry.names()
    finally:
        await manager.aclose()
