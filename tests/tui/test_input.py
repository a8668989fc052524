"""The prompt: newlines, completion of /commands and @paths, attachments, leaving."""

from __future__ import annotations

from pathlib import Path

from lull.ui.tui.widgets.completion_menu import CompletionMenu
from lull.ui.tui.widgets.user_message import UserMessage
from tests.fakes import FakeServer
from tests.tui.harness import idle, make_app, ready, send


async def test_ctrl_j_adds_a_newline_and_enter_sends_both_lines(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.prompt.insert("line one")
        await pilot.press("ctrl+j")
        app.prompt.insert("line two")
        assert app.prompt.text == "line one\nline two"
        await pilot.press("enter")
        await idle(pilot)
        assert app.query_one(UserMessage).text == "line one\nline two"
        assert app.prompt.text == ""


async def test_slash_completion_lists_matching_commands(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press(*"/co")
        menu = app.query_one(CompletionMenu)
        assert menu.is_open
        assert menu.request is not None
        assert [i.value for i in menu.request.items] == ["/compact", "/context", "/cost"]
        await pilot.press("down", "tab")
        assert app.prompt.text == "/context "
        assert not menu.is_open


async def test_at_path_completes_and_attaches_the_file(
    provider_env: FakeServer, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        app.prompt.insert("explain @s")
        await pilot.press("tab")
        assert app.prompt.text == "explain @src/"
        await pilot.press("tab")
        assert app.prompt.text == "explain @src/main.py "
        await pilot.press("enter")
        await idle(pilot)
    sent = provider_env.requests[-1]["messages"][-1]["content"][0]["text"]
    assert sent.startswith("explain @src/main.py")
    assert "Contents of src/main.py:\n```py\nprint('hi')\n```" in sent


async def test_escape_closes_the_menu_without_interrupting(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press(*"/he")
        assert app.query_one(CompletionMenu).is_open
        await pilot.press("escape")
        assert not app.query_one(CompletionMenu).is_open
        assert app.prompt.text == "/he"


async def test_ctrl_d_on_an_empty_prompt_quits(provider_env: FakeServer, workspace: Path) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press(*"ab", "ctrl+d")
        assert app.is_running and app.prompt.text == "ab"
        await pilot.press("ctrl+a", "ctrl+k", "ctrl+d")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_c_twice_quits_once_does_not(provider_env: FakeServer, workspace: Path) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press(*"draft", "ctrl+c")
        await pilot.pause()
        assert app.is_running and app.prompt.text == ""
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running


async def test_quit_command_closes_the_session_with_a_resume_id(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await send(pilot, "remember me")
        await idle(pilot)
        session = app.chat.runtime.agent.session  # type: ignore[union-attr]
        await send(pilot, "/quit")
        await pilot.pause()
        assert not app.is_running
    assert app.close_session() == session.id


async def test_ctrl_v_attaches_a_clipboard_image(
    provider_env: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    from tests.images import png_bytes

    shot = tmp_path / "clip board" / "clipboard-1.png"
    shot.parent.mkdir()
    shot.write_bytes(png_bytes(40, 30))
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt.clipboard_image = lambda: shot
        await pilot.press(*"what is")
        await pilot.press("ctrl+v")
        await pilot.pause()
        assert app.prompt.text == f'what is "{shot}" '
        await pilot.press("enter")
        await idle(pilot)
    content = provider_env.requests[-1]["messages"][-1]["content"]
    images = [block for block in content if block["type"] == "image"]
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"


async def test_ctrl_v_without_a_clipboard_image_pastes_text_and_says_why_once(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        asked: list[int] = []

        def unreadable() -> str:
            asked.append(1)
            return "no clipboard reader: install wl-clipboard (Wayland) or xclip (X11)"

        app.prompt.clipboard_image = unreadable
        app.copy_to_clipboard("copied text")
        await pilot.press("ctrl+v")
        await pilot.press("ctrl+v")
        await pilot.pause()
        assert app.prompt.text == "copied textcopied text" and len(asked) == 2
        toasts = [n.message for n in app._notifications]
        assert toasts == ["no clipboard reader: install wl-clipboard (Wayland) or xclip (X11)"]
