"""Resuming shows the earlier conversation; /clear and /resume switch sessions."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from lull.runtime import RunOptions, Runtime, build_runtime
from lull.settings.paths import user_settings_path
from lull.ui.tui.screens.choice_picker import ChoicePicker
from lull.ui.tui.screens.session_picker import SessionPicker
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from lull.ui.tui.widgets.command_output import CommandOutput
from lull.ui.tui.widgets.tool_block import ToolBlock
from lull.ui.tui.widgets.user_message import UserMessage
from tests.fakes import FakeServer, Reply, ToolUse
from tests.tui.harness import idle, make_app, ready, send, texts, until


async def _one_session(workspace: Path, fake: FakeServer, prompt: str) -> str:
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await send(pilot, prompt)
        await idle(pilot)
    session_id = app.close_session()
    assert session_id is not None
    return session_id


async def test_resume_shows_the_earlier_conversation(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(
        Reply(text="Listing.", tool_calls=[ToolUse("list_directory", {"path": "."})]),
        Reply(text="Empty, mostly."),
    )
    session_id = await _one_session(workspace, provider_env, "what is here?")
    gate = threading.Event()

    def slow_build(options: RunOptions) -> Runtime:
        gate.wait(10)
        return build_runtime(options)

    app = make_app(workspace, "--resume", session_id[:8], build=slow_build)
    async with app.run_test() as pilot:
        await send(pilot, "typed while starting")
        gate.set()
        await ready(pilot)
        await idle(pilot)
        assert texts(app, UserMessage) == ["what is here?", "typed while starting"]
        replayed = texts(app, AssistantMessage)
        assert replayed == ["Listing.", "Empty, mostly.", "(fake) You said: typed while starting"]
        assert app.query_one(ToolBlock).state == "ok"
        await send(pilot, "and now?")
        await idle(pilot)
        assert texts(app, UserMessage) == ["what is here?", "typed while starting", "and now?"]
        assert app.chat.runtime.agent.session.id == session_id  # type: ignore[union-attr]


async def test_resume_of_an_unknown_session_exits_with_the_reason(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace, "--resume", "no-such-id")
    async with app.run_test() as pilot:
        await until(pilot, lambda: not app.is_running, "the app to exit")
    assert app.fatal is not None and app.fatal.code == 1
    assert "no saved session 'no-such-id'" in app.fatal.message


async def test_clear_starts_an_empty_session_and_resume_picks_the_old_one(
    provider_env: FakeServer, workspace: Path
) -> None:
    app = make_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first topic")
        await idle(pilot)
        first = app.chat.runtime.agent.session.id  # type: ignore[union-attr]
        await send(pilot, "/clear")
        await pilot.pause()
        assert texts(app, UserMessage) == []
        (note,) = app.query(CommandOutput)
        assert note.lines[0].startswith("new session ")
        assert app.chat.runtime.agent.session.id != first  # type: ignore[union-attr]
        await send(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker), "the picker")
        await pilot.press("enter")
        await until(pilot, lambda: texts(app, UserMessage) == ["first topic"], "the old session")
        assert app.chat.runtime.agent.session.id == first  # type: ignore[union-attr]


async def test_rewind_redraws_the_conversation_before_that_prompt(
    provider_env: FakeServer, workspace: Path
) -> None:
    write = ToolUse("write_file", {"path": "a.txt", "content": "hello\n"})
    provider_env.script(Reply(tool_calls=[write]), Reply(text="Wrote it."), Reply(text="Sure."))
    app = make_app(workspace, "--approval-mode", "yolo")
    async with app.run_test() as pilot:
        await ready(pilot)
        await send(pilot, "write a")
        await idle(pilot)
        await send(pilot, "thanks")
        await idle(pilot)
        assert (workspace / "a.txt").exists()
        await send(pilot, "/rewind")
        await until(pilot, lambda: isinstance(app.screen, ChoicePicker), "the prompt picker")
        await pilot.press("enter")  # 1. write a
        await until(pilot, lambda: "Restore what" in app.screen.question, "the second picker")
        await pilot.press("enter")  # the code and the conversation
        await until(pilot, lambda: not isinstance(app.screen, ChoicePicker), "the pickers closed")
        await idle(pilot)
        assert texts(app, UserMessage) == []
        assert app.prompt.text == "write a"  # to edit and send again
        (output,) = app.query(CommandOutput)
        assert any("deleted" in line and "a.txt" in line for line in output.lines)
        assert not (workspace / "a.txt").exists()


async def test_escape_twice_while_idle_opens_the_rewind_picker(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(Reply(text="Hi."))
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await idle(pilot)
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, ChoicePicker), "the rewind picker")
        await pilot.press("escape")  # cancel: nothing changes
        await until(pilot, lambda: not isinstance(app.screen, ChoicePicker), "the picker closed")
        assert texts(app, UserMessage) == ["hello"]


async def test_session_start_hooks_run_as_the_tui_opens_a_session(
    provider_env: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "sources"
    start = tmp_path / "start.sh"
    start.write_text(f'#!/usr/bin/env bash\njq -r .source >> "{seen}"\necho "use pytest"\n')
    start.chmod(0o755)
    hook = {"matcher": "", "hooks": [{"type": "command", "command": str(start)}]}
    settings = user_settings_path()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": {"SessionStart": [hook]}}))
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await until(pilot, lambda: seen.exists(), "the SessionStart hook, before any prompt")
        await idle(pilot)
        assert seen.read_text() == "startup\n"
        await send(pilot, "/clear")
        await until(pilot, lambda: seen.read_text() == "startup\nclear\n", "the new session's")
        await idle(pilot)
        await send(pilot, "hello")
        await idle(pilot)
        assert seen.read_text() == "startup\nclear\n"  # once per session
    sent = json.dumps(provider_env.requests[-1]["messages"])
    assert "<session-start-hook>\\nuse pytest\\n</session-start-hook>" in sent
