"""What the terminal user sees of lull's context work reaches the editor too: an idle
cleanup as a notice in the answer, the context size and the session's cost as
``usage_update``s."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import text_block

from tests.fakes import FakeServer, Reply, ToolUse
from tests.unit.ui.acp.harness import Editor, editor_connected

pytestmark = pytest.mark.slow


async def test_an_idle_cleanup_and_the_cost_reach_the_editor(
    fake: FakeServer, workspace: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # explicit thresholds of 0 minutes (the env overrides end-to-end tests use): the next
    # prompt clears the earlier results at once, no waiting
    monkeypatch.setenv("LULL_TOOL_RESULTS_THRESHOLD_MINUTES", "0")
    monkeypatch.setenv("LULL_TOOL_RESULTS_NUM_TO_KEEP", "0")
    (workspace / "a.txt").write_text("alpha\n" * 200)
    editor = Editor(answer="allow_once")
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"}, "r1")]),
        Reply(text="read it"),
        Reply(text="again"),
    )
    async with editor_connected(fake, workspace, isolated_env, editor) as lull:
        session = await lull.new_session()
        await lull.conn.prompt(session_id=session, prompt=[text_block("read a.txt")])
        before = len(editor.updates)
        done = await lull.conn.prompt(session_id=session, prompt=[text_block("and now?")])
    assert done.stop_reason == "end_turn"
    said = "".join(
        u.content.text
        for _, u in editor.updates[before:]
        if u.session_update == "agent_message_chunk"
    )
    assert "cleared" in said and "again" in said  # the cleanup's notice, then the answer
    assert "alpha" not in str(fake.requests[-1]["messages"])  # and it really was cleared
    usage = [u for _, u in editor.updates if u.session_update == "usage_update"]
    assert usage and usage[-1].size > 0 and usage[-1].used > 0
    assert usage[-1].cost is not None and usage[-1].cost.currency == "USD"
