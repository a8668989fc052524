"""The installed ``lull`` (full-screen TUI) in a real terminal (tmux) against the loopback fake."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lull.engine.sessions.load import load_session
from lull.model.messages import unanswered_calls
from tests.e2e.conftest import Lull
from tests.e2e.tmux import Tmux, needs_tmux
from tests.fakes import FakeServer, Reply

pytestmark = [
    pytest.mark.slow,
    needs_tmux,
]

RESUME = re.compile(r"resume with: lull --resume ([0-9a-f-]{36})")
READY = "ready │"


def _say(tmux: Tmux, text: str) -> None:
    tmux.type(text)
    tmux.send("Enter")


def _quit(tmux: Tmux) -> str:
    """Ctrl+D on the empty prompt: exit 0 and a resume hint; returns the session id."""
    tmux.send("C-d")
    assert tmux.exit_code() == 0
    match = RESUME.search(tmux.screen())
    assert match, tmux.screen()
    return match.group(1)


def test_a_message_streams_back_and_ctrl_d_quits(tmux: Tmux, lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="# Plan\n\nHello **world**, streamed.\n\n- first step\n- second\n"))
    tmux.start(lull)
    tmux.wait_for(READY)
    _say(tmux, "say hello")
    screen = tmux.wait_for(lambda s: "second" in s and "cache warm" in s)
    assert "Hello world, streamed." in screen and "**" not in screen
    assert "say hello" in screen
    session_id = _quit(tmux)
    assert list(Path(lull.env["XDG_DATA_HOME"]).rglob(f"{session_id}.jsonl"))


def test_esc_mid_stream_then_resume(tmux: Tmux, lull: Lull, fake: FakeServer) -> None:
    story = " ".join(f"w{n}" for n in range(2000))  # minutes of stream: Esc lands mid-way
    fake.script(Reply(text=story, chunk_size=8, chunk_delay=0.1))
    tmux.start(lull)
    tmux.wait_for(READY)
    _say(tmux, "tell me a long story")
    tmux.wait_for("w20 ")
    tmux.send("Escape")
    screen = tmux.wait_for("interrupted")
    assert "w1999" not in screen
    session_id = _quit(tmux)
    saved = next(Path(lull.env["XDG_DATA_HOME"]).rglob(f"{session_id}.jsonl"))
    assert unanswered_calls(load_session(saved).messages) == []

    tmux.start(lull, "--resume", session_id)
    screen = tmux.wait_for(READY)
    assert "tell me a long story" in screen
    _say(tmux, "shorter please")
    tmux.wait_for("shorter please")
    tmux.wait_for(lambda s: "(fake) You said:" in s and s.count("shorter please") >= 2)
    assert _quit(tmux) == session_id


def test_without_a_provider_the_setup_panel_shows(tmux: Tmux, lull: Lull) -> None:
    env = {k: "" for k in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY")}
    tmux.start(lull, env=env)
    screen = tmux.wait_for("set up a model provider")
    assert "ANTHROPIC_API_KEY" in screen and "OPENAI_BASE_URL" in screen
    tmux.wait_for(lambda s: "Found on this machine" in s or "No local model server" in s)
    tmux.send("C-c")
    tmux.send("C-c")
    assert tmux.exit_code() == 0
