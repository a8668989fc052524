"""Driving the real TUI (real runtime, real SDK) against the loopback fake in Pilot tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget

from lull.command_line import parse_command_line
from lull.ui.shared.history import History
from lull.ui.tui.app import LullApp
from tests.support import close_when_the_test_ends

DEADLINE = 60.0
"""How long a wait may take before the test fails: generous, so a busy machine is never a
failure (a passing wait returns as soon as its condition holds)."""


def make_app(workspace: Path, *cli: str, **kwargs: Any) -> LullApp:
    """The TUI as ``lull CLI...`` would start it (history in the isolated state dir); its
    session is closed when the test ends, as ``lull`` closes it when the app has ended."""
    options = parse_command_line(list(cli), cwd=workspace).run
    kwargs.setdefault("history", History(workspace.parent / "history"))
    kwargs.setdefault("detect", lambda: [])
    app = LullApp(options, **kwargs)
    close_when_the_test_ends(app.close_session)
    return app


async def until(
    pilot: Pilot[Any], check: Callable[[], object], what: str, timeout: float = DEADLINE
) -> None:
    """Let the app run until ``check()`` is true; fail saying ``what`` did not happen."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for: {what}")
        await pilot.pause(0.02)


async def ready(pilot: Pilot[Any]) -> LullApp:
    """Wait until the runtime is built and the chat is idle."""
    app = pilot.app
    assert isinstance(app, LullApp)
    await until(pilot, lambda: app._chat is not None and app.chat.runtime is not None, "ready")
    return app


async def send(pilot: Pilot[Any], text: str) -> None:
    """Put ``text`` in the prompt (as a paste would) and press Enter.

    Pilot waits for the app to go idle after every key, so typing long texts key
    by key is slow; tests of typing itself press keys one by one.
    """
    app = pilot.app
    assert isinstance(app, LullApp)
    app.prompt.insert(text)
    await pilot.press("enter")


async def idle(pilot: Pilot[Any]) -> None:
    """Wait until no turn runs and nothing is queued."""
    app = pilot.app
    assert isinstance(app, LullApp)
    await until(pilot, lambda: not app.chat.busy and not app.chat.queue, "the turn to end")
    await pilot.pause()


async def settle(seconds: float = 0.05) -> None:
    """Give background threads (the fake server) a moment."""
    await asyncio.sleep(seconds)


def texts(app: LullApp, kind: type[Widget]) -> list[str]:
    """The ``text`` attribute of every widget of ``kind`` in the conversation."""
    return [str(getattr(w, "text", "")) for w in app.query(kind)]


def terminal_output(app: App[Any]) -> str:
    """What a full redraw of the current screen sends to the terminal: every character and
    escape sequence Textual would write (the headless driver writes nothing, so the
    compositor's full update is rendered here the way the real driver renders it)."""
    update = app.screen._compositor.render_full_update()
    return update.render_segments(app.console)


def screen_text(app: App[Any]) -> str:
    """The characters on the current screen, line by line (no styling)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def rendered(widget: Widget) -> str:
    """The plain text a Static-like widget shows."""
    return str(widget.render())
