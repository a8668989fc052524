"""The installed ``lull`` (full-screen TUI) in a real terminal (tmux) against the loopback fake."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lull.engine.sessions.load import load_session
from lull.model.messages import unanswered_calls
from tests.e2e.conftest import Lull
from tests.e2e.tmux import Tmux as Terminal
from tests.e2e.tmux import needs_tmux
from tests.fakes import FakeServer, Reply

pytestmark = [
    pytest.mark.slow,
    needs_tmux,
]

RESUME = re.compile(r"resume with: lull --resume ([0-9a-f-]{36})")
READY = "ready │"


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
