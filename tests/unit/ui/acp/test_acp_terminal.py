"""Commands in the editor's terminal (``terminal/*``) when it offers one, through the SDK's
client over real pipes; the editor runs them in subprocesses of its own."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from acp import text_block

from tests.fakes import FakeServer, Reply, ToolUse
from tests.unit.ui.acp.harness import Editor, editor_connected

pytestmark = pytest.mark.slow

YOLO = ("--approval-mode", "yolo")


def _terminal_ids(editor: Editor, call_id: str) -> list[str]:
    """The terminals the call's updates showed, in order."""
    return [
        block.terminal_id
        for update in editor.of_call(call_id)
        for block in update.content or []
        if block.type == "terminal"
    ]


async def test_a_command_runs_in_the_editors_terminal_and_the_call_shows_it(
    fake: FakeServer, workspace: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", "hunter2")  # the editor has it too: lull blanks it
    command = 'echo "out $PWD [$GH_TOKEN]"; echo err >&2; exit 3'
    editor = Editor(terminal=True)
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": command}, "c1")]),
        Reply(text="ran"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor, *YOLO) as lull:
        session = await lull.new_session()
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("run it")])
    assert done.stop_reason == "end_turn"
    assert editor.methods() == ["create", "wait_for_exit", "output", "release"]
    assert editor.terminal_calls[0] == ("create", f"bash -c {command}")
    assert _terminal_ids(editor, "c1")[0] == "term-1"
    finished = editor.of_call("c1")[-1]
    assert finished.status == "completed"
    assert finished.content[0].type == "terminal"
    assert finished.content[1].content.text == "Exit code: 3"
    seen = json.dumps(fake.requests[-1])
    assert "Exit code: 3" in seen and "output (stdout and stderr)" in seen
    assert f"out {workspace} []" in seen and "err" in seen
    assert "hunter2" not in seen


async def test_a_command_that_outlives_its_timeout_is_killed_in_the_terminal(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    fifo = workspace / "never"
    os.mkfifo(fifo)  # nothing writes to it: the command runs until it is killed
    call = {"command": f"echo started; cat {fifo}", "timeout_seconds": 0.2}
    editor = Editor(terminal=True)
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", call, "c1")]),
        Reply(text="it timed out"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor, *YOLO) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("run it")])
    assert editor.methods() == ["create", "wait_for_exit", "kill", "output", "release"]
    assert editor.of_call("c1")[-1].status == "failed"
    seen = json.dumps(fake.requests[-1])
    assert "Command timed out after 0.2 s" in seen and "started" in seen


async def test_cancel_mid_command_kills_and_releases_the_terminal(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    fifo = workspace / "never"
    os.mkfifo(fifo)
    editor = Editor(terminal=True)
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": f"cat {fifo}"}, "c1")]),
        Reply(text="after the cancel"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor, *YOLO) as lull:
        session = await lull.new_session()
        prompt = asyncio.create_task(
            lull.conn.prompt(session_id=session, prompt=[text_block("wait forever")])
        )
        await editor.until(lambda: "wait_for_exit" in editor.methods())
        (running,) = editor.terminals.values()
        await lull.conn.cancel(session_id=session)
        done = await asyncio.wait_for(prompt, 60)
        assert done.stop_reason == "cancelled"
        await editor.until(lambda: "release" in editor.methods())
        again = await lull.conn.prompt(session_id=session, prompt=[text_block("still there?")])
    assert editor.methods()[-2:] == ["kill", "release"] and editor.terminals == {}
    assert running.process.returncode is not None  # the command is gone
    last = editor.of_call("c1")[-1]
    assert last.status == "failed" and last.content[0].type == "terminal"
    assert again.stop_reason == "end_turn"
    assert "Cancelled by the user" in json.dumps(fake.requests[-1])


async def test_with_the_sandbox_on_commands_stay_in_lulls_sandboxed_shell(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    settings = isolated_env / "config" / "lull" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"sandbox": {"enabled": True, "failIfUnavailable": True}}))
    editor = Editor(terminal=True)
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo inside"}, "c1")]),
        Reply(text="ran"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor, *YOLO) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("run it")])
    assert editor.terminal_calls == []
    assert _terminal_ids(editor, "c1") == []
    seen = json.dumps(fake.requests[-1])
    assert "inside" in seen or "sandbox" in seen  # ran in the sandbox, or it said why not
