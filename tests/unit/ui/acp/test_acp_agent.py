"""``lull acp`` as an editor runs it: the SDK's client side over the real process's pipes,
the fake model behind it."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.connection import StreamDirection, StreamEvent
from acp.schema import ResourceContentBlock

from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.script import last_user_text
from tests.unit.ui.acp.harness import Editor, editor_connected

pytestmark = pytest.mark.slow


async def test_initialize_says_what_lull_offers(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    async with editor_connected(fake, workspace, isolated_env, Editor()) as lull:
        offered = lull.initialized
        assert offered.protocol_version == 1
        assert offered.agent_info is not None and offered.agent_info.name == "lull"
        capabilities = offered.agent_capabilities
        assert capabilities is not None and capabilities.load_session
        assert capabilities.prompt_capabilities is not None
        assert capabilities.prompt_capabilities.image
        assert capabilities.prompt_capabilities.embedded_context


async def test_a_new_session_offers_modes_and_commands_and_streams_an_answer(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor()
    fake.script(Reply(text="Hello from the fake.", thinking="let me think", chunk_size=4))
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        response = await lull.conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert response.modes is not None
        assert response.modes.current_mode_id == "default"
        assert [m.id for m in response.modes.available_modes] == [
            "default",
            "auto-edit",
            "yolo",
            "plan",
            "dont-ask",
        ]
        done = await lull.conn.prompt(session_id=response.session_id, prompt=[text_block("hi")])
        await editor.until(lambda: "available_commands_update" in editor.kinds())
    assert done.stop_reason == "end_turn"
    assert editor.text() == "Hello from the fake."
    assert editor.text("agent_thought_chunk") == "let me think"
    assert editor.kinds().count("agent_message_chunk") > 1  # streamed, not one block
    commands = next(u for _, u in editor.updates if u.session_update == "available_commands_update")
    names = {command.name for command in commands.available_commands}
    assert {"compact", "context", "cost"} <= names and "quit" not in names
    assert last_user_text(fake.requests[-1]) == "hi"


async def test_a_call_that_needs_approval_runs_when_granted(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor(answer="allow_once")
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo granted-run"}, "c1")]),
        Reply(text="done"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("run it")])
    assert done.stop_reason == "end_turn"
    ((asked, options),) = editor.permissions
    assert asked.tool_call_id == "c1" and asked.kind == "execute"
    assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once"}
    start, running, finished = editor.of_call("c1")
    assert (start.session_update, start.status, start.kind) == ("tool_call", "pending", "execute")
    assert running.status == "in_progress"
    assert finished.status == "completed"
    assert "granted-run" in finished.content[0].content.text
    assert editor.terminal_calls == []  # it offers no terminal: lull's own shell ran it


async def test_a_rejected_call_fails_and_the_model_hears_why(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor(answer="reject")
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo nope"}, "c1")]),
        Reply(text="ok, not running it"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("run it")])
    assert done.stop_reason == "end_turn"
    start, finished = editor.of_call("c1")
    assert start.status == "pending" and finished.status == "failed"
    assert "rejected" in json.dumps(fake.requests[-1])
    assert editor.text().endswith("ok, not running it")


async def test_an_edit_arrives_as_a_diff(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    editor = Editor(answer="allow_once")
    edit = {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    fake.script(Reply(tool_calls=[ToolUse("edit", edit, "e1")]), Reply(text="edited"))
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("edit it")])
    start, _running, finished = editor.of_call("e1")
    assert start.kind == "edit"
    assert start.locations[0].path == str(workspace / "app.py")
    for update in (start, finished):
        diff = update.content[0]
        assert (diff.type, diff.path) == ("diff", str(workspace / "app.py"))
        assert (diff.old_text, diff.new_text) == ("x = 1", "x = 2")
    assert finished.status == "completed"
    assert (workspace / "app.py").read_text() == "x = 2\n"


async def test_an_editor_that_offers_fs_is_read_and_written_through(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    path = workspace / "app.py"
    path.write_text("x = 1\n")  # saved; the editor holds an unsaved change
    editor = Editor(answer="allow_once", buffers={str(path): "x = 1\ny = 2  # unsaved\n"})
    edit = {"path": "app.py", "old_string": "y = 2", "new_string": "y = 3"}
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "app.py"}, "r1")]),
        Reply(tool_calls=[ToolUse("edit", edit, "e1")]),
        Reply(text="edited"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("edit it")])
    assert "y = 2  # unsaved" in json.dumps(fake.requests[1])  # the model read the buffer
    assert editor.reads == [str(path), str(path)]
    assert editor.writes == [(str(path), "x = 1\ny = 3  # unsaved\n")]


async def test_an_editor_without_fs_leaves_the_files_on_disk_to_lull(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    editor = Editor(answer="allow_once")
    fake.script(
        Reply(tool_calls=[ToolUse("write_file", {"path": "new.py", "content": "z = 0\n"}, "w")]),
        Reply(text="written"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("write")])
    assert (workspace / "new.py").read_text() == "z = 0\n"
    assert editor.reads == [] and editor.writes == []


async def test_cancel_mid_tool_gives_the_call_its_result(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor()
    fifo = workspace / "never"
    os.mkfifo(fifo)  # nothing ever writes to it: the call runs until it is cancelled
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": f"cat {fifo}"}, "c1")]),
        Reply(text="after the cancel"),
    )
    yolo = ("--approval-mode", "yolo")
    async with editor_connected(fake, workspace, isolated_env, editor, *yolo) as lull:
        session = await lull.new_session()
        prompt = asyncio.create_task(
            lull.conn.prompt(session_id=session, prompt=[text_block("wait forever")])
        )
        await editor.until(lambda: any(u.status == "in_progress" for u in editor.of_call("c1")))
        await lull.conn.cancel(session_id=session)
        done = await asyncio.wait_for(prompt, 60)
        assert done.stop_reason == "cancelled"
        assert editor.of_call("c1")[-1].status == "failed"
        again = await lull.conn.prompt(session_id=session, prompt=[text_block("still there?")])
    assert again.stop_reason == "end_turn"
    assert editor.text().endswith("after the cancel")
    assert "Cancelled by the user" in json.dumps(fake.requests[-1])  # the call's result


async def test_load_resumes_a_saved_session_and_replays_it(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"}, "r1")]),
        Reply(text="It says alpha."),
    )
    first = Editor()
    async with editor_connected(fake, workspace, isolated_env, first) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("read a.txt")])
    later = Editor()
    fake.script(Reply(text="Still alpha."))
    async with editor_connected(fake, workspace, isolated_env, later) as lull:
        await lull.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
        replayed = list(later.kinds())
        assert later.text("user_message_chunk") == "read a.txt"
        assert later.text() == "It says alpha."
        assert [u.status for u in later.of_call("r1")] == ["pending", "completed"]
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("and now?")])
    assert done.stop_reason == "end_turn"
    assert replayed[0] == "user_message_chunk"
    assert "It says alpha." in json.dumps(fake.requests[-1])  # the model sees the history


async def test_list_names_the_saved_sessions_of_the_directory_newest_first(
    fake: FakeServer, workspace: Path, isolated_env: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fake.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    editor = Editor()
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        capabilities = lull.initialized.agent_capabilities
        assert capabilities is not None and capabilities.session_capabilities is not None
        assert capabilities.session_capabilities.list is not None
        first = await lull.new_session()
        await lull.conn.prompt(session_id=first, prompt=[text_block("fix the parser")])
        second = await lull.new_session()
        await lull.conn.prompt(session_id=second, prompt=[text_block("add a test")])
        other = await lull.conn.new_session(cwd=str(elsewhere), mcp_servers=[])
        await lull.conn.prompt(session_id=other.session_id, prompt=[text_block("not here")])
        await lull.new_session()  # nothing said in it: not listed
        listed = await lull.conn.list_sessions(cwd=str(workspace))
        default = await lull.conn.list_sessions()  # the directory lull started in
    assert [(s.session_id, s.title) for s in listed.sessions] == [
        (second, "add a test"),
        (first, "fix the parser"),
    ]
    assert {s.cwd for s in listed.sessions} == {str(workspace)}
    assert all(datetime.fromisoformat(s.updated_at or "").tzinfo for s in listed.sessions)
    assert listed.next_cursor is None
    assert [s.session_id for s in default.sessions] == [second, first]


async def test_loading_an_unknown_session_is_an_error(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    async with editor_connected(fake, workspace, isolated_env, Editor()) as lull:
        with pytest.raises(RequestError) as raised:
            await lull.conn.load_session(cwd=str(workspace), session_id="s_nope", mcp_servers=[])
        assert "s_nope" in json.dumps(raised.value.data)
        assert await lull.new_session()  # the agent goes on


async def test_modes_switch_lulls_approval_mode(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor(answer=None)  # would cancel any question: none may come
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo yolo"}, "c1")]),
        Reply(text="ran"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        await lull.conn.set_session_mode(session_id=session, mode_id="yolo")
        await lull.conn.prompt(session_id=session, prompt=[text_block("go")])
        with pytest.raises(RequestError):
            await lull.conn.set_session_mode(session_id=session, mode_id="reckless")
    assert editor.permissions == []
    assert editor.of_call("c1")[-1].status == "completed"


async def test_a_todo_list_becomes_the_editors_plan_without_a_question(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor(answer=None)  # would cancel any question: none may come
    todos = [
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run tests", "status": "pending", "activeForm": "Running tests"},
    ]
    fake.script(
        Reply(tool_calls=[ToolUse("todo_write", {"todos": todos}, "t1")]),
        Reply(text="planned"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("plan it")])
    assert editor.permissions == []
    (plan,) = [u for _, u in editor.updates if u.session_update == "plan"]
    entries = [(e.content, e.priority, e.status) for e in plan.entries]
    assert entries == [("Fix the bug", "medium", "in_progress"), ("Run tests", "medium", "pending")]
    assert editor.of_call("t1")[-1].status == "completed"


async def test_a_slash_command_answers_in_the_editor(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor()
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("/cost")])
    assert done.stop_reason == "end_turn"
    assert "$" in editor.text() or "cost" in editor.text()
    assert fake.requests == []


async def test_a_resource_link_attaches_the_file(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    (workspace / "notes.md").write_text("the secret word is fennel\n")
    link = ResourceContentBlock(
        type="resource_link", name="notes.md", uri=(workspace / "notes.md").as_uri()
    )
    fake.script(Reply(text="fennel"))
    async with editor_connected(fake, workspace, isolated_env, Editor()) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("what word?"), link])
    assert "the secret word is fennel" in json.dumps(fake.requests[-1])


async def test_malformed_messages_get_a_clear_error_and_the_agent_goes_on(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    incoming: list[dict[str, Any]] = []

    def observe(event: StreamEvent) -> None:
        if event.direction == StreamDirection.INCOMING:
            incoming.append(event.message)

    editor = Editor()
    fake.script(Reply(text="still here"))
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        lull.conn._conn.add_observer(observe)
        stdin = lull.process.stdin
        assert stdin is not None
        stdin.write(b"{not json\n[1, 2]\n")
        stdin.write(b'{"jsonrpc": "2.0", "id": 77, "method": "session/bogus", "params": {}}\n')
        stdin.write(b'{"jsonrpc": "2.0", "id": 78, "method": "session/prompt", "params": {}}\n')
        await stdin.drain()
        session = await lull.new_session()
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("hi")])
    assert done.stop_reason == "end_turn" and editor.text() == "still here"
    errors = {m.get("id"): m["error"] for m in incoming if "error" in m}
    assert [e["code"] for e in _nulls(incoming)] == [-32700, -32600]
    assert "not valid JSON" in _nulls(incoming)[0]["message"]
    assert errors[77]["code"] == -32601
    assert errors[78]["code"] == -32602


def _nulls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["error"] for m in messages if "error" in m and m.get("id") is None]
