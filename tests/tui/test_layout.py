"""Narrow terminals, resizing, light and dark themes, NO_COLOR."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from lull.ui.tui.screens.approval import ApprovalScreen
from lull.ui.tui.widgets.tool_block import ToolBlock
from tests.fakes import FakeServer, Reply, ToolUse
from tests.tui.harness import idle, make_app, ready, send, until


async def test_sixty_columns_fit_the_status_line_and_the_approval_buttons(
    provider_env: FakeServer, workspace: Path
) -> None:
    write = ToolUse("write_file", {"path": "n.txt", "content": "x" * 200})
    provider_env.script(Reply(tool_calls=[write]), Reply(text="ok"))
    app = make_app(workspace)
    async with app.run_test(size=(60, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the modal")
        await pilot.pause()
        for button in app.screen.query(Button):
            assert button.region.right <= 60, f"{button.label} is cut off"
        await pilot.press("y")
        await idle(pilot)
        assert len(app.status.line) <= 58
        assert "claude-sonnet-4-6" in app.status.line
        assert app.query_one(ToolBlock).region.right <= 60


async def test_resizing_refits_the_status_line(provider_env: FakeServer, workspace: Path) -> None:
    app = make_app(workspace)
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        wide = app.status.line
        assert "anthropic · claude-sonnet-4-6" in wide and "cache cold" in wide
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        narrow = app.status.line
        assert len(narrow) <= 58 and "claude-sonnet-4-6" in narrow
        assert "anthropic ·" not in narrow


async def test_light_and_dark_themes_render_a_turn(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(
        Reply(text="**bold**", tool_calls=[ToolUse("list_directory", {"path": "."})]),
        Reply(text="done"),
    )
    app = make_app(workspace)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot)
        app.theme = "textual-light"
        await send(pilot, "look")
        await idle(pilot)
        light = app.export_screenshot()
        app.theme = "textual-dark"
        await pilot.pause()
        dark = app.export_screenshot()
        assert "list_directory" in light and "list_directory" in dark
        assert light != dark


async def test_no_color_is_honoured(provider_env: FakeServer, workspace: Path) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        assert app.no_color
