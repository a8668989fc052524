"""Waiting for a slow first token (a local model reading a long prompt) is visible in line
mode and in the TUI status, and the wait ends at the first token."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from lull.model.events import AssistantText, TurnFailed
from lull.ui.shared.waiting import FirstTokenWait
from tests.e2e.conftest import Lull
from tests.e2e.tmux import Tmux, needs_tmux
from tests.fakes import FakeServer, Reply
from tests.tui.harness import idle, make_app, ready, send, until


@needs_tmux
@pytest.mark.slow
def test_line_mode_shows_that_it_waits_for_a_slow_model(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    evaluated = threading.Event()  # a slow prompt evaluation, over when the test says so
    fake.script(Reply(text="finally an answer", hold=evaluated))
    tmux.start(lull, "--plain")
    tmux.wait_for("Ctrl+D quits")
    tmux.type("hello")
    tmux.send("Enter")
    screen = tmux.wait_for("waiting for the model")
    assert "finally" not in screen
    evaluated.set()
    screen = tmux.wait_for("1 request:")
    assert "finally an answer" in screen and "waiting for the model" not in screen
    assert "first token after" in screen


async def test_the_tui_status_shows_the_wait_then_the_time_to_first_token(
    anthropic_env: FakeServer, workspace: Path
) -> None:
    evaluated = threading.Event()
    anthropic_env.script(Reply(text="slow but here", hold=evaluated, first_delay=1.0))
    app = make_app(workspace)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await until(pilot, lambda: "waiting" in app.status.line, "the waiting state")
        evaluated.set()
        await idle(pilot)
        first = app.status.facts.first_token_seconds
        assert first is not None and first >= 1.0  # at least the fake's first delay
        assert f"first token {first:.1f}s" in app.status.line
        assert "waiting" not in app.status.line


def test_the_wait_ends_at_the_first_token() -> None:
    now = [100.0]
    wait = FirstTokenWait(lambda: now[0])
    from lull.model.events import TurnStarted

    wait.observe(TurnStarted("hi"))
    now[0] += 12.5
    assert wait.waiting and wait.elapsed() == 12.5
    wait.observe(AssistantText("a"))
    assert not wait.waiting and wait.last_seconds == 12.5
    wait.observe(TurnFailed("x", "server"))
    assert wait.last_seconds == 12.5
