"""One MCP server: listing and calling over stdio and streamable HTTP; a crash mid-call, a
hang past the timeout and a server that never starts are error results with the stderr
tail, and the server starts again on the next use."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from lull.mcp.connection import McpCallError, McpConnection, McpFailure, expand
from lull.model.mcp import McpServerConfig
from tests.unit.mcp.conftest import StdioServer


async def test_lists_and_calls_tools_over_stdio(stdio_server: StdioServer, tmp_path: Path) -> None:
    connection = McpConnection(stdio_server(), tmp_path)
    try:
        await connection.connect()
        names = [t.name for t in connection.tools or ()]
        assert names[:3] == ["echo", "add", "picture"]
        assert {t.name: t.read_only_hint for t in connection.tools or ()}["add"] is True
        result = await connection.call("echo", {"text": "hi"})
        assert result.content[0].text == "echo: hi" and connection.state == "ready"
    finally:
        await connection.close()


async def test_a_crash_mid_call_is_a_failure_with_stderr_and_the_next_call_restarts(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    connection = McpConnection(stdio_server(), tmp_path)
    try:
        with pytest.raises(McpFailure) as failure:
            await connection.call("crash", {})
        assert "MCP server t:" in str(failure.value)
        assert "about to crash: out of cheese" in str(failure.value)  # the stderr tail
        assert connection.state == "failed" and connection.last_error
        result = await connection.call("add", {"a": 2, "b": 3})
        assert result.content[0].text == "5" and connection.starts == 2
    finally:
        await connection.close()


async def test_a_hang_past_the_timeout_fails_and_the_server_restarts(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    connection = McpConnection(stdio_server(timeout=15.0), tmp_path)
    try:
        await connection.connect()
        connection.config = McpServerConfig(
            **{**_fields(connection.config), "timeout_seconds": 0.5}
        )
        with pytest.raises(McpFailure, match=r"no answer within 0.5 s \(timeoutSeconds\)"):
            await connection.call("hang", {})
        connection.config = McpServerConfig(**{**_fields(connection.config), "timeout_seconds": 15})
        result = await connection.call("echo", {"text": "back"})
        assert result.content[0].text == "echo: back" and connection.starts == 2
    finally:
        await connection.close()


async def test_a_server_that_never_starts_fails_with_its_stderr(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    connection = McpConnection(stdio_server("db", "--fail-start"), tmp_path)
    with pytest.raises(McpFailure) as failure:
        await connection.connect()
    assert str(failure.value).startswith("MCP server db:")
    assert "fatal: the database is not there" in str(failure.value)
    assert connection.state == "failed"
    await connection.close()


async def test_a_missing_command_is_named(tmp_path: Path) -> None:
    config = McpServerConfig("gone", command="no-such-mcp-server-here", timeout_seconds=5)
    connection = McpConnection(config, tmp_path)
    with pytest.raises(McpFailure, match="command not found"):
        await connection.connect()
    await connection.close()


async def test_server_stderr_goes_to_the_debug_log(
    stdio_server: StdioServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lull.mcp")
    connection = McpConnection(stdio_server("noisy"), tmp_path)
    try:
        await connection.connect()
    finally:
        await connection.close()
    assert any("mcp noisy stderr: test server starting" in r.getMessage() for r in caplog.records)


async def test_lists_and_calls_tools_over_streamable_http(http_url: str, tmp_path: Path) -> None:
    config = McpServerConfig("web", transport="http", url=http_url, timeout_seconds=15)
    connection = McpConnection(config, tmp_path)
    try:
        await connection.connect()
        assert "echo" in [t.name for t in connection.tools or ()]
        result = await connection.call("add", {"a": 20, "b": 22})
        assert result.content[0].text == "42"
    finally:
        await connection.close()


def test_variables_in_settings_are_expanded() -> None:
    env = {"TOKEN": "abc"}
    assert expand("Bearer ${TOKEN}", env) == "Bearer abc"
    assert expand("${MISSING:-none}/${MISSING}", env) == "none/"


def _fields(config: McpServerConfig) -> dict[str, object]:
    return {name: getattr(config, name) for name in config.__dataclass_fields__}


async def test_a_json_rpc_error_is_that_calls_error_and_the_server_keeps_its_state(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    connection = McpConnection(stdio_server("s", "--stateful"), tmp_path)
    try:
        assert (await connection.call("count", {})).content[0].text == "count 1"
        with pytest.raises(McpCallError, match="the widget is jammed") as failure:
            await connection.call("fail", {})
        assert str(failure.value).startswith("MCP server s: fail answered with an error")
        assert (await connection.call("count", {})).content[0].text == "count 2"  # not restarted
        assert connection.state == "ready" and connection.starts == 1
    finally:
        await connection.close()


async def test_a_json_rpc_error_leaves_sibling_calls_in_flight_alone(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    connection = McpConnection(stdio_server("s", "--stateful"), tmp_path)
    try:
        await connection.call("count", {})
        slow = [connection.call("slow", {"seconds": 0.4}) for _ in range(2)]
        results = await asyncio.gather(
            *slow, connection.call("fail", {"reason": "no"}), return_exceptions=True
        )
        assert [r.content[0].text for r in results[:2]] == ["slept 0.4", "slept 0.4"]  # type: ignore[union-attr]
        assert isinstance(results[2], McpCallError)
        assert (await connection.call("count", {})).content[0].text == "count 2"
        assert connection.starts == 1
    finally:
        await connection.close()
