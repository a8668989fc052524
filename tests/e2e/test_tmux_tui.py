"""The installed ``lull`` (full-screen TUI) in a real terminal (tmux) against the loopback fake."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.messages import unanswered_calls
from app.core.store import load_session
from tests.e2e.conftest import Lull, lull_command
from tests.fakes import FakeServer, Reply

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("tmux") is None or shutil.which("bash") is None,
        reason="tmux (and bash) are needed",
    ),
]

RESUME = re.compile(r"resume with: lull --resume ([0-9a-f-]{36})")
READY = "ready │"


class Terminal:
    """A private tmux server (own socket) running lull full-screen in a 100x30 window."""

    def __init__(self, directory: Path) -> None:
        self.socket = directory / "tmux-tui.sock"
        self.exit_file = directory / "exit-code"

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=10,
        )
        return done.stdout

    def start(self, lull: Lull, *args: str, env: dict[str, str] | None = None) -> None:
        """Run ``lull ARGS``; the exit code goes to a file and the pane stays to be read."""
        self.exit_file.unlink(missing_ok=True)
        script = f"{shlex.join([*lull_command(), *args])}; echo $? > {self.exit_file}"
        self._tmux("kill-server")
        self._tmux(
            *("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";"),
            *("new-session", "-d", "-x", "100", "-y", "30", "-c", str(lull.workspace)),
            *("bash", "-c", script),
            env={**lull.env, "TERM": "xterm-256color", **(env or {})},
        )

    def send(self, *keys: str) -> None:
        """Press keys (tmux names: Enter, Escape, C-d …)."""
        self._tmux("send-keys", "-t", "0", *keys)

    def type(self, text: str) -> None:
        """Type literal text."""
        self._tmux("send-keys", "-t", "0", "-l", text)

    def screen(self) -> str:
        """What the window shows now."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "0")

    def wait_for(self, want: str | Callable[[str], bool], timeout: float = 20) -> str:
        """Poll the screen until ``want`` shows; fail with the screen."""
        check = want if callable(want) else (lambda screen: want in screen)
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {want!r}; screen:\n{screen}")
            time.sleep(0.05)

    def exit_code(self, timeout: float = 15) -> int:
        """Wait for lull to exit; its exit code."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return int(self.exit_file.read_text())
            except (OSError, ValueError):
                if time.monotonic() > deadline:
                    pytest.fail(f"lull did not exit; screen:\n{self.screen()}")
                time.sleep(0.05)

    def close(self) -> None:
        """Kill the server and everything in it."""
        self._tmux("kill-server")


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal(tmp_path)
    try:
        yield terminal
    finally:
        terminal.close()


def _say(term: Terminal, text: str) -> None:
    term.type(text)
    term.send("Enter")


def _quit(term: Terminal) -> str:
    """Ctrl+D on the empty prompt: exit 0 and a resume hint; returns the session id."""
    term.send("C-d")
    assert term.exit_code() == 0
    match = RESUME.search(term.screen())
    assert match, term.screen()
    return match.group(1)


def test_a_message_streams_back_and_ctrl_d_quits(
    term: Terminal, lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(text="# Plan\n\nHello **world**, streamed.\n\n- first step\n- second\n"))
    term.start(lull)
    term.wait_for(READY)
    _say(term, "say hello")
    screen = term.wait_for(lambda s: "second" in s and "cache warm" in s)
    assert "Hello world, streamed." in screen and "**" not in screen
    assert "say hello" in screen
    session_id = _quit(term)
    assert list(Path(lull.env["XDG_DATA_HOME"]).rglob(f"{session_id}.jsonl"))


def test_esc_mid_stream_then_resume(term: Terminal, lull: Lull, fake: FakeServer) -> None:
    story = " ".join(f"w{n}" for n in range(2000))
    fake.script(Reply(text=story, chunk_size=8, chunk_delay=0.02))
    term.start(lull)
    term.wait_for(READY)
    _say(term, "tell me a long story")
    term.wait_for("w20 ")
    term.send("Escape")
    screen = term.wait_for("interrupted")
    assert "w1999" not in screen
    session_id = _quit(term)
    saved = next(Path(lull.env["XDG_DATA_HOME"]).rglob(f"{session_id}.jsonl"))
    assert unanswered_calls(load_session(saved).messages) == []

    term.start(lull, "--resume", session_id)
    screen = term.wait_for(READY)
    assert "tell me a long story" in screen
    _say(term, "shorter please")
    term.wait_for("shorter please", timeout=20)
    term.wait_for(lambda s: "(fake) You said:" in s and s.count("shorter please") >= 2)
    assert _quit(term) == session_id


def test_without_a_provider_the_setup_panel_shows(term: Terminal, lull: Lull) -> None:
    env = {k: "" for k in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
    term.start(lull, env=env)
    screen = term.wait_for("set up a model provider")
    assert "ANTHROPIC_API_KEY" in screen and "OPENAI_BASE_URL" in screen
    term.wait_for(lambda s: "Found on this machine" in s or "No local model server" in s)
    term.send("C-c")
    term.send("C-c")
    assert term.exit_code() == 0
