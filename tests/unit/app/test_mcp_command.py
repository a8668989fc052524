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
