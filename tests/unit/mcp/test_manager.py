"""Which servers start (a project's need trust), their tools in the registry, late servers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lull.mcp.manager import McpManager
from lull.model.mcp import McpServerConfig
from lull.tools.base import ToolContext
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
        assert status["bad"].last_error and "not there" in status["bad"].stderr[-1]
        assert "mcp__good__echo" in registry.names()
    finally:
        await manager.aclose()


async def test_start_failures_are_notices_with_the_servers_stderr_and_mcp_keeps_the_tail(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    missing = McpServerConfig("gone", command="no-such-mcp-server-here", timeout_seconds=5)
    servers = (
        stdio_server("bad", "--fail-start"),
        missing,
        stdio_server("stuck", "--hang-start", timeout=0.5),
    )
    manager = McpManager(servers, default_registry(), tmp_path, "anthropic", trusted=lambda: True)
    manager.wait = True
    try:
        manager.start()
        await manager.settle()
        notices = {n.text.split()[2]: n for n in manager.take_notices()}
        assert manager.take_notices() == []  # each is said once
    finally:
        await manager.aclose()
    assert set(notices) == {"bad", "gone", "stuck"} and {n.level for n in notices.values()} == {
        "warning"
    }
    assert "MCP server bad did not start: it exited" in notices["bad"].text
    assert "fatal: the database is not there" in notices["bad"].text  # its own last words
    assert "command not found: no-such-mcp-server-here" in notices["gone"].text
    assert "did not start: no answer within 0.5 s of its start" in notices["stuck"].text
    status = {s.name: s for s in manager.statuses()}
    assert status["bad"].stderr[-1] == "fatal: the database is not there"
    assert "Connection closed" not in status["bad"].last_error


async def test_calls_to_a_server_that_failed_or_waits_for_trust_are_error_results(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    project = dataclasses.replace(stdio_server("theirs"), scope="project")
    registry = default_registry()
    manager = McpManager(
        (stdio_server("bad", "--fail-start"), project), registry, tmp_path, "anthropic",
        trusted=lambda: False,
    )  # fmt: skip
    manager.wait = True
    context = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    try:
        manager.start()
        await manager.settle()
        assert registry.get("mcp__bad__query") is not None  # the model's call is not unknown
        assert "mcp__bad__query" not in registry.names()  # but nothing is offered
        failed = await registry.execute("mcp__bad__query", {"q": 1}, context)
        waiting = await registry.execute("mcp__theirs__echo", {"text": "x"}, context)
    finally:
        await manager.aclose()
    assert failed.is_error and "MCP server bad did not start" in failed.content
    assert "fatal: the database is not there" in failed.content
    assert waiting.is_error and "waits for /trust" in waiting.content
    assert registry.get("mcp__nobody__query") is None  # no such server: still unknown


async def test_a_call_while_its_server_starts_waits_for_it_then_asks_to_call_again(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    registry = default_registry()
    server = stdio_server("late", "--start-delay", "0.3", include_tools=("echo",))
    manager = McpManager((server,), registry, tmp_path, "anthropic", trusted=lambda: True)
    context = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    try:
        manager.start()  # interactive: nothing waits for it
        assert manager.statuses()[0].state == "starting"
        early = await registry.execute("mcp__late__echo", {"text": "hi"}, context)
        assert early.is_error and "was still starting" in early.content
        assert "call mcp__late__echo again" in early.content
        again = await registry.execute("mcp__late__echo", {"text": "hi"}, context)
        assert again.content == "echo: hi" and not again.is_error
        unknown = await registry.execute("mcp__late__nothing", {}, context)
        assert "unknown tool" in unknown.content  # once it is up, its listing decides
    finally:
        await manager.aclose()


async def test_a_tool_with_a_bad_schema_is_skipped_and_said_and_the_rest_are_offered(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    registry = default_registry()
    server = stdio_server("odd", "--bad-schema")
    manager = McpManager((server,), registry, tmp_path, "anthropic", trusted=lambda: True)
    manager.wait = True
    try:
        manager.start()
        await manager.settle()
        notices = [n.text for n in manager.take_notices()]
        assert manager.statuses()[0].state == "ready"
    finally:
        await manager.aclose()
    assert "mcp__odd__echo" in registry.names()
    assert "mcp__odd__broken" not in registry.names()
    assert "mcp__odd__misspelled" not in registry.names()
    assert len(notices) == 2
    assert notices[0].startswith("MCP server odd: tool broken skipped: its input schema")
    assert notices[1].startswith("MCP server odd: tool misspelled skipped: its input schema")
