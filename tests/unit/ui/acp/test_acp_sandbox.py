"""The sandbox's question about a new host in ``lull acp``: a ``session/request_permission``
on the running ``run_shell_command`` call, which runs on after the answer (real bubblewrap,
a loopback server; skipped where the sandbox cannot start)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp import text_block

from lull.settings.rule_files import workspace_rules_path
from lull.tools.process.sandbox.probe import probe
from tests.fakes import FakeServer, Reply, ToolUse
from tests.loopback import FETCH, HELLO, hello_server
from tests.unit.ui.acp.harness import Editor, editor_connected

pytestmark = pytest.mark.slow


@pytest.fixture
def sandbox_on(isolated_env: Path) -> None:
    """The user's settings turn the sandbox on (skips where it cannot start)."""
    ready = probe()
    if not ready.ready:
        pytest.skip(f"no sandbox here: {ready.missing}")
    user = isolated_env / "config" / "lull" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"sandbox": {"enabled": True}}))


@pytest.mark.usefixtures("sandbox_on")
@pytest.mark.parametrize("answer", ["allow_once", "allow_always", "reject"])
async def test_a_new_host_is_asked_on_the_running_shell_call(
    fake: FakeServer, workspace: Path, isolated_env: Path, answer: str
) -> None:
    editor = Editor(answer=answer)
    with hello_server() as port:
        fetch = FETCH.format(host="localhost", port=port)
        fake.script(
            Reply(tool_calls=[ToolUse("run_shell_command", {"command": fetch}, "c1")]),
            Reply(text="done"),
        )
        async with editor_connected(fake, workspace, isolated_env, editor) as lull:
            session = await lull.new_session()
            done = await lull.conn.prompt(session_id=session, prompt=[text_block("fetch it")])
    assert done.stop_reason == "end_turn"
    ((asked, options),) = editor.permissions  # the sandboxed command itself was not asked
    assert asked.tool_call_id == "c1" and asked.status == "pending"
    assert "localhost: a sandboxed command wants to reach it" in asked.content[0].content.text
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    updates = editor.of_call("c1")
    assert [u.session_update for u in updates].count("tool_call") == 1
    assert {u.tool_call_id for _, u in editor.updates if hasattr(u, "tool_call_id")} == {"c1"}
    statuses = [u.status for u in updates if u.status is not None]
    assert statuses == ["pending", "in_progress", "in_progress", "completed"]  # on after it
    output = updates[-1].content[0].content.text
    assert (HELLO in output) == (answer != "reject"), output
    saved = workspace_rules_path()
    if answer == "allow_always":
        entry = json.loads(saved.read_text())["workspaces"][str(workspace.resolve())]
        assert entry["sandbox"]["network"]["allowedDomains"] == ["localhost"]
    else:
        assert not saved.exists()
        if answer == "reject":
            assert "denied network access to localhost" in output
