"""The MCP servers an editor passes with ``session/new`` start like the user's own (in the
background, as in the terminal), and the model can call their tools: a real server
(``tests/mcp/server.py``) over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from acp import text_block
from acp.schema import EnvVariable, McpServerStdio

from tests.fakes import FakeServer, Reply, ToolUse
from tests.unit.ui.acp.harness import Editor, editor_connected

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[4]


async def test_a_server_the_editor_passes_starts_and_its_tool_answers(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    editor = Editor(answer="allow_once")
    echo = {"text": "from the editor"}
    fake.script(
        Reply(tool_calls=[ToolUse("mcp__tools__echo", echo, "m1")]),
        Reply(tool_calls=[ToolUse("mcp__tools__echo", echo, "m2")]),
        Reply(text="done"),
    )
    server = McpServerStdio(
        name="tools",
        command=sys.executable,
        args=["-m", "tests.mcp.server"],
        env=[EnvVariable(name="PYTHONPATH", value=str(ROOT))],
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.conn.new_session(cwd=str(workspace), mcp_servers=[server])
        done = await lull.conn.prompt(session_id=session.session_id, prompt=[text_block("echo it")])
    assert done.stop_reason == "end_turn"
    # a call made while the server was still starting waits for it, then says to call again
    # (its schema was not offered yet); the next request offers the tool and the call answers
    *_, early = editor.of_call("m1")
    assert early.status in ("failed", "completed")
    assert "mcp__tools__echo" in {tool["name"] for tool in fake.requests[-2]["tools"]}
    *_, finished = editor.of_call("m2")
    assert finished.status == "completed"
    assert "echo: from the editor" in finished.content[0].content.text
