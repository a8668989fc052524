"""One MCP server: listing and calling over stdio and streamable HTTP; a crash mid-call, a
hang past the timeout and a server that never starts are error results with the stderr
tail, and the server starts again on the next use."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from lull.mcp.connection import McpCallError, McpConnection, McpFailure, expand
from lull.model import defaults
from lull.model.mcp import McpServerConfig, McpTimeouts
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


async def test_a_call_past_its_timeout_is_cancelled_and_the_server_keeps_running(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    config = stdio_server("s", "--stateful", tool_timeout_seconds=0.5)
    connection = McpConnection(config, tmp_path)
    try:
        assert (await connection.call("count", {})).content[0].text == "count 1"
        calls = [connection.call("slow", {"seconds": s}) for s in (30, 0.05, 0.1)]
        late, *quick = await asyncio.gather(*calls, return_exceptions=True)
        assert isinstance(late, McpCallError)
        assert "no answer within 0.5 s (toolTimeoutSeconds); the call was cancelled" in str(late)
        assert [r.content[0].text for r in quick] == ["slept 0.05", "slept 0.1"]  # type: ignore[union-attr]
        counted = await _eventually(connection, lambda text: "1 cancelled" in text)
        assert counted.endswith(", 1 cancelled")  # notifications/cancelled reached the server
        assert connection.state == "ready" and connection.starts == 1
    finally:
        await connection.close()


async def test_starting_has_its_own_timeout_from_the_entry_or_the_global_setting(
    stdio_server: StdioServer, tmp_path: Path
) -> None:
    own = McpConnection(stdio_server("a", "--hang-start", timeout=0.5), tmp_path)
    with pytest.raises(McpFailure, match=r"no answer within 0.5 s of its start"):
        await own.connect()
    await own.close()
    config = dataclasses.replace(stdio_server("b", "--hang-start"), timeout_seconds=None)
    shared = McpConnection(config, tmp_path, timeouts=McpTimeouts(start_seconds=0.4))
    with pytest.raises(McpFailure, match=r"no answer within 0.4 s of its start") as failure:
        await shared.connect()
    assert "test server starting" in str(failure.value)  # its stderr so far
    await shared.close()
    assert McpConnection(config, tmp_path).call_timeout == defaults.MCP_TOOL_TIMEOUT_SECONDS


async def _eventually(connection: McpConnection, done: Callable[[str], bool]) -> str:
    """``count``'s answer once ``done`` says so (the server notes a cancel a moment after the
    client sent it); at most 50 tries."""
    for _ in range(50):
        text = str((await connection.call("count", {})).content[0].text)
        if done(text):
            return text
        await asyncio.sleep(0.05)
    return text


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
