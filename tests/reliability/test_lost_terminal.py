"""When its terminal goes away (SIGHUP, or a terminal that hung up with SIGHUP ignored),
lull stops the turn, saves a resumable session and exits; ``-p`` too. The terminal tests run
the real binary in tmux."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lull.engine.sessions.load import load_session
from lull.model.events import TurnFinished
from lull.model.messages import unanswered_calls
from lull.runtime import RunOptions, build_runtime
from tests.e2e.conftest import Lull, lull_command
from tests.e2e.tmux import Tmux, needs_tmux
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import run

# SIGHUP as a terminal would deliver it, even if this test runs under nohup.
DEFAULT_SIGHUP = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_gone(pid: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"lull (pid {pid}) still ran {timeout:.0f} s after its terminal went")
        time.sleep(0.1)


def _only_session(lull: Lull) -> Path:
    [path] = list(Path(lull.env["XDG_DATA_HOME"]).rglob("*.jsonl"))
    return path


def _resumable(lull: Lull, fake: FakeServer, path: Path) -> None:
    """Every tool call in the saved session has its result, nothing was sent to the model
    after the terminal went away, and lull goes on from there."""
    messages = load_session(path).messages
    assert unanswered_calls(messages) == []
    assert [m.role for m in messages] == ["user", "assistant", "user"]  # the result, no more
    assert len(fake.requests) == 1
    fake.script(Reply(text="going on"))
    runtime = build_runtime(RunOptions(lull.workspace, resume=path.stem), env=lull.env)
    events = asyncio.run(run(runtime.agent, "go on"))
    runtime.close()
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "going on"


@needs_tmux
@pytest.mark.slow
@pytest.mark.parametrize("plain", [False, True], ids=["tui", "line"])
@pytest.mark.parametrize("ignore_hangup", [False, True], ids=["sighup", "sighup-ignored"])
def test_killing_the_terminal_ends_lull_and_keeps_the_session(
    plain: bool, ignore_hangup: bool, tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo hi"})]))
    tmux.start(lull, *(["--plain"] if plain else []), ignore_hangup=ignore_hangup)
    tmux.wait_for("Ctrl+D quits" if plain else "ready │")
    tmux.type("run echo")
    tmux.send("Enter")
    tmux.wait_for("Allow run_shell_command" if plain else "waiting for approval")
    pid = tmux.lull_pid()
    tmux.close()  # the terminal goes away with the approval question open
    _wait_gone(pid)
    _resumable(lull, fake, _only_session(lull))


@pytest.mark.slow
def test_sighup_stops_p_and_keeps_the_session(lull: Lull, fake: FakeServer) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "sleep 30"})]),
    )
    command = [*lull_command(), "-p", "wait", "--output-format", "json"]
    process = subprocess.Popen(
        [*DEFAULT_SIGHUP, *command, "--approval-mode", "yolo"],
        cwd=lull.workspace,
        env=lull.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not list(Path(lull.env["XDG_DATA_HOME"]).rglob("*.jsonl")) or not fake.requests:
            assert time.monotonic() < deadline and process.poll() is None, "lull -p did not start"
            time.sleep(0.05)
        path = _only_session(lull)
        while "sleep 30" not in path.read_text():  # the tool call is running
            assert time.monotonic() < deadline, "the tool call did not start"
            time.sleep(0.05)
        process.send_signal(signal.SIGHUP)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 129, err
    payload = json.loads(out)
    assert payload["is_error"] is True and "SIGHUP" in payload["error"]
    _resumable(lull, fake, path)
