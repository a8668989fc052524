"""mcpServers: entries checked key by key; a project's servers are marked and never replace
the user's; a project's .mcp.json is read the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lull.model.mcp import McpTimeouts
from lull.settings.checks import Invalid
from lull.settings.loader import load_settings
from lull.settings.mcp_servers import parse_server
from lull.settings.paths import user_settings_path


def test_stdio_http_and_sse_entries() -> None:
    stdio = parse_server("gh", {"command": "npx", "args": ["-y", "x"], "env": {"A": "1"}})
    assert (stdio.transport, stdio.args, stdio.env) == ("stdio", ("-y", "x"), (("A", "1"),))
    http = parse_server("web", {"url": "https://h/mcp", "headers": {"X": "y"}, "timeoutSeconds": 5})
    assert (http.transport, http.timeout_seconds) == ("http", 5.0)
    assert parse_server("old", {"type": "sse", "url": "http://h/sse"}).transport == "sse"
    assert parse_server("g", {"httpUrl": "http://h/mcp"}).url == "http://h/mcp"
    assert parse_server("f", {"command": "x", "includeTools": ["a"]}).include_tools == ("a",)
    pinned = parse_server("p", {"command": "x", "alwaysLoad": True})  # Claude Code's key
    assert pinned.always_load and pinned.to_json() == {"command": "x", "alwaysLoad": True}
    assert not stdio.always_load and "alwaysLoad" not in stdio.to_json()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"command": "x", "args": "a b"}, "a list of strings in gh.args"),
        ({"url": "ftp://h"}, "an http:// or https:// URL in gh.url"),
        ({"command": "x", "colour": 1}, "colour is not one"),
        ({}, "a command (stdio) or a url (HTTP) for server 'gh'"),
        ({"command": "x", "timeoutSeconds": 0}, "a number > 0 in gh.timeoutSeconds"),
        ({"command": "x", "alwaysLoad": "yes"}, "true or false in gh.alwaysLoad"),
        ({"command": "x", "toolTimeoutSeconds": -1}, "a number > 0 in gh.toolTimeoutSeconds"),
    ],
)
def test_bad_entries_name_the_server_and_key(entry: dict[str, object], message: str) -> None:
    with pytest.raises(Invalid, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_server("gh", entry)


def test_start_and_call_timeouts_per_server_and_for_all(workspace: Path) -> None:
    entry = parse_server("s", {"command": "x", "timeoutSeconds": 5, "toolTimeoutSeconds": 90})
    assert (entry.timeout_seconds, entry.tool_timeout_seconds) == (5.0, 90.0)
    assert entry.to_json() == {"command": "x", "timeoutSeconds": 5.0, "toolTimeoutSeconds": 90.0}
    # Gemini CLI's and Qwen Code's per-server ``timeout`` is milliseconds for each call
    gemini = parse_server("g", {"command": "x", "timeout": 30000})
    assert gemini.tool_timeout_seconds == 30.0
    assert gemini.to_json() == {"command": "x", "toolTimeoutSeconds": 30.0}
    both = parse_server("b", {"command": "x", "timeout": 30000, "toolTimeoutSeconds": 7})
    assert both.tool_timeout_seconds == 7.0
    with pytest.raises(Invalid, match=r"a number > 0 in g\.timeout"):
        parse_server("g", {"command": "x", "timeout": 0})
    plain = parse_server("p", {"command": "x"})
    assert (plain.timeout_seconds, plain.tool_timeout_seconds) == (None, None)
    assert plain.to_json() == {"command": "x"}
    settings = load_settings(workspace, env={}).settings.mcp
    assert (settings.start_timeout_seconds, settings.tool_timeout_seconds) == (60.0, 600.0)
    env = {"MCP_TIMEOUT": "1500", "MCP_TOOL_TIMEOUT": "120000"}  # Claude Code's, milliseconds
    settings = load_settings(workspace, env=env).settings.mcp
    assert (settings.start_timeout_seconds, settings.tool_timeout_seconds) == (1.5, 120.0)
    loaded = load_settings(workspace, env={"MCP_TIMEOUT": "soon"})
    assert "env MCP_TIMEOUT: expected a number > 0 (milliseconds)" in loaded.diagnostics[0].message
    timeouts = plain.timeouts(McpTimeouts(2.0, 30.0))
    assert (timeouts.start_seconds, timeouts.call_seconds) == (2.0, 30.0)
    assert entry.timeouts(McpTimeouts(2.0, 30.0)) == McpTimeouts(5.0, 90.0)


def test_project_servers_are_marked_and_never_replace_the_users(workspace: Path) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps({"mcpServers": {"gh": {"command": "mine"}}}))
    (workspace / ".lull").mkdir()
    (workspace / ".lull" / "settings.json").write_text(
        json.dumps({"mcpServers": {"gh": {"command": "evil"}, "db": {"command": "dbserver"}}})
    )
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"url": "http://h/"}}}))
    loaded = load_settings(workspace, env={})
    servers = {s.name: s for s in loaded.settings.mcp_servers}
    assert servers["gh"].command == "mine" and servers["gh"].scope == "user"
    assert servers["db"].scope == "project" and servers["db"].source.endswith("settings.json")
    assert servers["docs"].scope == "project" and servers["docs"].source.endswith(".mcp.json")
    assert any("gh ignored" in d.message for d in loaded.diagnostics)


def test_a_broken_entry_is_reported_with_the_file_and_key(workspace: Path) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps({"mcpServers": {"gh": {"command": 5}}}))
    loaded = load_settings(workspace, env={})
    assert loaded.settings.mcp_servers == ()
    message = loaded.diagnostics[0].message
    assert (
        str(user_settings_path()) in message and "mcpServers" in message and "gh.command" in message
    )
