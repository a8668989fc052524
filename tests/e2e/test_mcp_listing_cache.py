"""``lull -p`` with an MCP server whose tool listing is kept from an earlier run: the first
request leaves before the server has started, a call to its tool waits for it, a server that
fails in the background gives the call an error result, and a changed launch config (or no
kept listing) is waited for as before. Each server waits on a gate file the test opens only
once it has seen what it waits for at the fake, so nothing here depends on timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lull.settings.paths import mcp_listings_dir, user_settings_path
from tests.e2e.conftest import Lull
from tests.fakes import FakeServer, Reply, ToolUse

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ECHO = "mcp__srv__echo"
COUNT = "mcp__srv__count"


def _configure(gate: Path, *flags: str) -> None:
    """One test server ``srv`` behind ``gate``, with tool search on (its tools deferred)."""
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.server", "--gate", str(gate), *flags],
        "cwd": str(ROOT),
        "timeoutSeconds": 30,
    }
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"srv": entry}, "tools": {"toolSearch": True}}))


def _open(gate: Path, word: str = "go") -> None:
    """Open the gate (written whole, so the server never reads half of it)."""
    part = gate.with_suffix(".part")
    part.write_text(word)
    os.replace(part, gate)


def _fill_cache(lull: Lull, fake: FakeServer, gate: Path) -> None:
    """A first run with the gate open: the server lists its tools, and lull keeps them."""
    _open(gate)
    fake.script(Reply(text="first run"))
    done = lull.run("-p", "hello")
    assert done.returncode == 0, done.stderr
    assert list(mcp_listings_dir().glob("*.json")), "the listing was not kept"
    gate.unlink()
    fake.reset()


def _deferred_names(request: dict[str, Any]) -> str:
    """The tool_search description (which lists the deferred tools by name)."""
    [search] = [tool for tool in request["tools"] if tool["name"] == "tool_search"]
    return str(search["description"])


def _tool_result(request: dict[str, Any]) -> str:
    """The text of the last tool result the request carries."""
    for message in reversed(request["messages"]):
        for block in message.get("content", []):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                content = block["content"]
                if isinstance(content, str):
                    return content
                return "".join(part.get("text", "") for part in content)
    raise AssertionError("no tool result in the request")


def _echo_with_a_kept_listing(
    lull: Lull, fake: FakeServer, tmp_path: Path, word: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    """With the listing kept by a first run, run ``lull -p`` whose model calls ``echo``;
    once its first request is at the fake (the server still waits at its gate), open the
    gate with ``word``. The run, and the call's result as the next request carries it."""
    gate = tmp_path / "gate"
    _configure(gate)
    _fill_cache(lull, fake, gate)
    fake.script(Reply(tool_calls=[ToolUse(ECHO, {"text": "hi"})]), Reply(text="done"))
    process = lull.popen("-p", "echo hi", "--approval-mode", "yolo")
    deadline = time.monotonic() + 60
    while not fake.requests:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            _, err = process.communicate()
            raise AssertionError(f"no first request while the server waited: {err}")
        time.sleep(0.02)
    assert ECHO in _deferred_names(fake.requests[0])
    _open(gate, word)
    out, err = process.communicate(timeout=60)
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    assert done.returncode == 0, done.stderr
    return done, _tool_result(fake.requests[1])


def test_with_a_kept_listing_the_first_request_leaves_before_the_server_and_a_call_waits(
    lull: Lull, fake: FakeServer, tmp_path: Path
) -> None:
    done, result = _echo_with_a_kept_listing(lull, fake, tmp_path, "go")
    assert done.stdout.strip() == "done"
    assert result == "echo: hi"


def test_a_server_that_fails_in_the_background_gives_its_tool_call_an_error(
    lull: Lull, fake: FakeServer, tmp_path: Path
) -> None:
    done, result = _echo_with_a_kept_listing(lull, fake, tmp_path, "fail")
    assert result.startswith(f"MCP server srv did not start, so {ECHO} cannot run")
    assert "fatal: the gate said fail" in result
    assert "MCP server srv did not start" in done.stderr


def test_a_changed_server_config_does_not_use_the_kept_listing(
    lull: Lull, fake: FakeServer, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    _configure(gate)
    _fill_cache(lull, fake, gate)
    _configure(gate, "--stateful")  # other arguments: the kept listing is not this server's
    _open(gate)
    fake.script(Reply(text="fresh"))
    done = lull.run("-p", "hello")
    assert done.returncode == 0, done.stderr
    assert COUNT in _deferred_names(fake.requests[0])  # only the fresh listing has it
    assert len(list(mcp_listings_dir().glob("*.json"))) == 2


def test_without_a_kept_listing_the_first_request_waits_for_the_server(
    lull: Lull, fake: FakeServer, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    _configure(gate, "--stateful")
    _open(gate)
    fake.script(Reply(text="waited"))
    done = lull.run("-p", "hello")
    assert done.returncode == 0, done.stderr
    assert COUNT in _deferred_names(fake.requests[0])
