"""lull mcp add | list | get | remove: the user settings file, edited from the shell."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from lull.cli import main
from lull.settings.paths import user_settings_path
from lull.ui.mcp_command import run_mcp_command


def _run(*argv: str) -> str:
    out = io.StringIO()
    assert run_mcp_command(list(argv), out) == 0
    return out.getvalue()


def test_add_list_get_remove(workspace: Path) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps({"model": {"name": "kept"}}))
    assert "added MCP server gh" in _run("add", "-e", "TOKEN=x", "gh", "npx", "-y", "server-gh")
    assert "added MCP server web" in _run(
        "add", "-H", "Authorization: Bearer t", "web", "https://h/mcp"
    )
    data = json.loads(user_settings_path().read_text())
    assert data["model"] == {"name": "kept"}
    assert data["mcpServers"]["gh"] == {
        "command": "npx",
        "args": ["-y", "server-gh"],
        "env": {"TOKEN": "x"},
    }
    assert data["mcpServers"]["web"] == {
        "url": "https://h/mcp",
        "headers": {"Authorization": "Bearer t"},
    }
    listing = _run("-C", str(workspace), "list")
    assert (
        "gh: npx -y server-gh (stdio, user)" in listing
        and "web: https://h/mcp (http, user)" in listing
    )
    assert '"command": "npx"' in _run("-C", str(workspace), "get", "gh")
    assert "removed MCP server gh" in _run("remove", "gh")
    assert "gh" not in json.loads(user_settings_path().read_text())["mcpServers"]


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "remove", "nothing"]) == 1
    assert "has no MCP server named 'nothing'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        run_mcp_command(["add", "-t", "http", "bad", "ftp://x"])
    assert exit_.value.code == 2


def _user_servers() -> dict[str, object]:
    return dict(json.loads(user_settings_path().read_text())["mcpServers"])


def test_headers_and_options_may_follow_the_url_as_in_claude_code() -> None:
    # the README's own example, and Claude Code's --header after the URL
    _run("add", "--transport", "http", "docs", "https://example.com/mcp", "-H", "A: 1")
    _run("add", "-t", "http", "more", "https://h/mcp", "--header", "B: 2", "--header=C: 3")
    _run("add", "--transport=sse", "-s", "user", "old", "http://h/sse", "-HD: 4")
    servers = _user_servers()
    assert servers["docs"] == {"url": "https://example.com/mcp", "headers": {"A": "1"}}
    assert servers["more"] == {"url": "https://h/mcp", "headers": {"B": "2", "C": "3"}}
    assert servers["old"] == {"type": "sse", "url": "http://h/sse", "headers": {"D": "4"}}


def test_a_stdio_command_after_the_separator_keeps_its_own_dashes() -> None:
    _run("add", "gh", "-e", "A=1", "--", "npx", "-y", "server-gh", "-H", "not lull's")
    assert _user_servers()["gh"] == {
        "command": "npx",
        "args": ["-y", "server-gh", "-H", "not lull's"],
        "env": {"A": "1"},
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", "-e", "A=1", "--", "node", "x.js"], "the server needs a name before --"),
        (["add", "--", "node", "x.js"], "the server needs a name before --"),
        (["add", "-t", "http"], "a server name and its URL"),
        (["add", "solo"], "a server name and its command"),
        (["add", "a", "b", "--", "node"], "only the server's name goes before --"),
        (["add", "x", "--"], "a command after --"),
        (["add", "-s", "global", "x", "cmd"], "--scope is local, project or user"),
        (["add", "--bogus", "x", "cmd"], "unknown option --bogus"),
        (["add", "-H"], "-H needs a value"),
        (["add-json", "x"], "a server name and its entry as one JSON argument"),
        (["add-json", "x", "{nope"], "not JSON"),
        (["add-json", "x", '{"command": "a", "colour": 1}'], "colour is not one"),
    ],
)
def test_a_bad_add_is_refused_with_the_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_mcp_command(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not user_settings_path().exists()  # nothing written


def test_scopes_map_to_lulls_places(workspace: Path) -> None:
    _run("-C", str(workspace), "add", "--scope", "project", "-t", "http", "team", "https://t/mcp")
    _run("-C", str(workspace), "add", "-s", "project", "tool", "--", "./tool", "--serve")
    shared = json.loads((workspace / ".mcp.json").read_text())["mcpServers"]
    assert shared["team"] == {"type": "http", "url": "https://t/mcp"}  # Claude Code reads it too
    assert shared["tool"] == {"command": "./tool", "args": ["--serve"]}
    said = _run("-C", str(workspace), "add", "-s", "local", "mine", "my-server")
    assert "no private per-project file" in said  # local: the user settings, said so
    assert _user_servers()["mine"] == {"command": "my-server"}
    listing = _run("-C", str(workspace), "list")
    assert "team: https://t/mcp (http, project" in listing and "mine: my-server" in listing
    assert "removed MCP server tool" in _run(
        "-C", str(workspace), "remove", "-s", "project", "tool"
    )
    assert set(json.loads((workspace / ".mcp.json").read_text())["mcpServers"]) == {"team"}


def test_add_json_takes_claude_codes_entry(workspace: Path) -> None:
    entry = '{"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer t"}}'
    assert "added MCP server web" in _run("add-json", "web", entry)
    assert _user_servers()["web"] == json.loads(entry)
    _run("-C", str(workspace), "add-json", "--scope", "project", "fs", '{"command": "npx"}')
    assert json.loads((workspace / ".mcp.json").read_text())["mcpServers"]["fs"] == {
        "command": "npx"
    }
