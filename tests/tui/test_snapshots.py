"""SVG snapshots of key TUI screens: a tool-using answer, the approval modal, first-run setup.

Each test drives the real app (real runtime, real SDK) against the loopback fake
to a screen, then compares a screenshot with the accepted one under
``__snapshots__/``. Accept a deliberate change with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and review the SVGs.

What varies between runs or machines is pinned in the test, never in the app:
the clock is a constant; the status bar's context tokens, cost and last-response
time (they depend on the temp path, platform and date in the system prompt) are
replaced by fixed figures; a tool block's measured run time is fixed; the
prompt's cursor does not blink; the user settings path the setup panel names is
a fixed (unused) directory.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from lull.ui.tui.app import LullApp
from lull.ui.tui.screens.approval import ApprovalScreen
from lull.ui.tui.widgets.setup_panel import NONE_FOUND, SetupPanel
from lull.ui.tui.widgets.tool_block import ToolBlock
from tests.fakes import FakeServer, Reply, ToolUse
from tests.tui.harness import idle, make_app, ready, rendered, send, until

SIZE = (100, 30)
NOW = 1_750_000_000.0  # the app's clock, constant
SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


@pytest.fixture(autouse=True)
def colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots keep colour (the suite sets NO_COLOR): state colours are part of the screen."""
    monkeypatch.delenv("NO_COLOR", raising=False)


def _pin_status(app: LullApp) -> None:
    """Replace the machine-dependent status figures with fixed ones (the rest stays real)."""
    facts = app.status.facts
    last = NOW - 42  # the cache clock's five-minute entry is written at the last response
    app.status.show(
        replace(
            facts,
            context_tokens=3_456,
            last_response_at=last,
            cache_warm_until=last + 300,
            cost_usd=0.0123,
        )
    )


def _pin_tool_times(app: LullApp) -> None:
    """Fix the run time each finished tool block shows (it is measured with a real clock)."""
    for block in app.query(ToolBlock):
        block._elapsed = 0.1
        block._draw()


def _snap(app: LullApp, snap_compare: SnapCompare, run_before: RunBefore) -> None:
    """Drive ``app`` with ``run_before``, stop the cursor blinking, compare the screenshot."""

    async def steady(pilot: Pilot[Any]) -> None:
        app.prompt.cursor_blink = False  # a blinking cursor is on or off by timing
        await run_before(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=steady)


def test_an_answer_with_a_read_file_block(
    provider_env: FakeServer, workspace: Path, snap_compare: SnapCompare
) -> None:
    """A streamed answer around one read_file call: the ok block, its preview, markdown."""
    (workspace / "notes.md").write_text("# Notes\n\n- buy milk\n- fix the flaky test\n")
    provider_env.script(
        Reply(
            text="Let me look at your notes.",
            tool_calls=[ToolUse("read_file", {"path": "notes.md"})],
            chunk_size=4,
        ),
        Reply(
            text="You have **two** items:\n\n1. buy milk\n2. fix the flaky test\n\n"
            "Want me to start on `the flaky test`?",
            chunk_size=4,
        ),
    )
    app = make_app(workspace, clock=lambda: NOW)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "what is in notes.md?")
        await idle(pilot)
        assert app.query_one(ToolBlock).state == "ok"
        _pin_tool_times(app)
        _pin_status(app)

    _snap(app, snap_compare, run_before)


def test_the_approval_modal_for_a_write_file_call(
    provider_env: FakeServer, workspace: Path, snap_compare: SnapCompare
) -> None:
    """The modal over the conversation: the call, its diff, the choices, the reason box."""
    content = "def greet(name):\n    return f'hello {name}'\n"
    provider_env.script(
        Reply(
            text="I'll add a greeting helper.",
            tool_calls=[ToolUse("write_file", {"path": "greet.py", "content": content})],
        ),
        Reply(text="Done."),
    )
    app = make_app(workspace, clock=lambda: NOW)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "add a greet function")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        await pilot.pause()
        assert "waiting for approval" in app.status.line
        _pin_status(app)

    _snap(app, snap_compare, run_before)


def test_the_first_run_setup_panel(
    fake: FakeServer,
    workspace: Path,
    snap_compare: SnapCompare,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No provider configured and no local server: the panel says what to set."""
    monkeypatch.setenv("XDG_CONFIG_HOME", "/home/you/.config")  # only named, never read here
    app = make_app(workspace, detect=lambda: [], clock=lambda: NOW)

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: app.setup is not None, "the setup panel")
        panel = app.setup
        assert isinstance(panel, SetupPanel)
        await until(pilot, lambda: NONE_FOUND in _panel_text(panel), "the local search result")

    _snap(app, snap_compare, run_before)


def _panel_text(panel: SetupPanel) -> str:
    return "\n".join(rendered(w) for w in panel.query("Static"))
