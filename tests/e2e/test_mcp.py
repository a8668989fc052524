"""MCP servers under the real ``lull`` binary: a server that does not start is said on stderr,
a server that floods its stdout does not flood lull's stderr, and a server outlives no
``lull`` that was killed."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lull.settings.paths import user_settings_path
from tests.e2e.conftest import Lull
from tests.e2e.tmux import Tmux, needs_tmux
from tests.fakes import FakeServer, Reply

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _servers(**servers: list[str]) -> None:
    """Name test servers (``tests/mcp/server.py`` with these flags) in the user settings."""
    entries = {
        name: {
            "command": sys.executable,
            "args": ["-m", "tests.mcp.server", *flags],
            "cwd": str(ROOT),
        }
        for name, flags in servers.items()
    }
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": entries}))


def test_a_server_that_does_not_start_is_said_on_stderr(lull: Lull, fake: FakeServer) -> None:
    _servers(db=["--fail-start"], good=[])
    fake.script(Reply(text="answered anyway"))
    done = lull.run("-p", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answered anyway"
    [line] = [line for line in done.stderr.splitlines() if "MCP server db" in line]
    assert line.startswith("lull: MCP server db did not start: it exited")
    assert "fatal: the database is not there" in line
    offered = [tool["name"] for tool in fake.requests[0]["tools"]]
    assert "mcp__good__echo" in offered and not any("mcp__db__" in n for n in offered)


def test_with_json_output_a_start_failure_is_said_on_stderr_too(
    lull: Lull, fake: FakeServer
) -> None:
    _servers(db=["--fail-start"])
    fake.script(Reply(text="answered anyway"))
    done = lull.run("-p", "hello", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "answered anyway"
    assert any(
        line.startswith("lull: MCP server db did not start") for line in done.stderr.splitlines()
    )


@needs_tmux
@pytest.mark.parametrize("front_end", [["--plain"], []], ids=["line mode", "full screen"])
def test_a_start_failure_shows_while_the_user_is_idle_at_the_prompt(
    tmux: Tmux, lull: Lull, front_end: list[str]
) -> None:
    """Nothing typed: the failure is on screen without waiting for the next prompt."""
    _servers(db=["--fail-start"])
    tmux.start(lull, *front_end)
    screen = tmux.wait_for("MCP server db did not start")
    assert "fatal: the database is not there" in screen.replace("\n", " ")
    tmux.send("C-d")
    assert tmux.exit_code() == 0


def test_a_server_flooding_its_stdout_does_not_flood_lulls_stderr(
    lull: Lull, fake: FakeServer
) -> None:
    _servers(noisy=["--flood", "3000"])
    fake.script(Reply(text="still here"))
    done = lull.run("-p", "hello")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "still here"
    assert len(done.stderr) < 10_000, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "mcp__noisy__echo" in [tool["name"] for tool in fake.requests[0]["tools"]]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a parent-death signal")
def test_a_hung_server_does_not_outlive_a_killed_lull(
    lull: Lull, fake: FakeServer, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    _servers(stuck=["--hang-start", "--pid-file", str(pid_file)])
    fake.script(Reply(text="never asked"))
    process = lull.popen("-p", "hello")  # -p waits for the server to start: it never does
    server = 0
    try:
        server = int(_eventually(lambda: pid_file.exists() and pid_file.read_text(), 30))
        assert _alive(server)
        process.kill()  # SIGKILL: lull cannot stop its servers itself
        process.wait(timeout=10)
        assert _eventually(lambda: not _alive(server), 10), "the server outlived lull"
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
        if server and _alive(server):
            os.kill(server, signal.SIGKILL)


def _eventually(check: Callable[[], Any], seconds: float) -> Any:
    """``check()`` once it is true, polling every 50 ms for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (value := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie that only waits to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"
