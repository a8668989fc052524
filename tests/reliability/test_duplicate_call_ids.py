"""Duplicate tool-call ids from a model are made unique on receipt: every call gets its
own result, and the next request is one a strict API accepts."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lull.engine.sessions.store import SessionStore
from lull.model.messages import ToolCall
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.helpers import (
    messages_of,
    tool_result_texts,
    turn_finished,
)
from tests.support import AgentFactory, agent_on, run


async def test_duplicate_call_ids_on_the_scripted_provider_each_get_their_result(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")

    def reads(*names: str) -> ScriptedReply:
        calls = tuple(ScriptedCall("read_file", {"path": n}, id="dup") for n in names)
        return ScriptedReply(tool_calls=calls)

    provider = ScriptedProvider(
        [
            reads("a.txt", "b.txt"),
            ScriptedReply(text="both"),
            reads("b.txt"),
            ScriptedReply(text="b"),
        ]
    )
    agent = agent_on(provider, workspace, tmp_path, clock=time.time)
    session, store = agent.session, SessionStore(tmp_path / "sessions", workspace)

    await run(agent, "read both")
    await run(agent, "read b again")  # "dup" was used earlier in the session

    calls = [p for m in session.transcript for p in m.parts if isinstance(p, ToolCall)]
    assert [c.id for c in calls] == ["dup", "dup_2", "dup_3"]
    results = {p.call_id: p.content for m in session.transcript for p in m.tool_results}
    assert "alpha" in results["dup"] and "beta" in results["dup_2"] and "beta" in results["dup_3"]
    sent = provider.requests[1].messages[-1].tool_results
    assert [r.call_id for r in sent] == ["dup", "dup_2"]
    session.close()
    assert messages_of(store.latest()) == session.transcript


@pytest.mark.parametrize(("vendor", "same"), [("anthropic", "toolu_same"), ("openai", "call_0")])
async def test_duplicate_call_ids_through_the_fake_are_accepted_on_the_next_request(
    vendor: str, same: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    fake.script(
        Reply(
            tool_calls=[
                ToolUse("read_file", {"path": "a.txt"}, id=same),
                ToolUse("read_file", {"path": "b.txt"}, id=same),
            ]
        ),
        Reply(text="Both read."),
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"}, id=same)]),  # a local server
        Reply(text="Again."),  # numbering its calls from 0 on every answer
    )
    agent = make_agent(vendor)

    assert turn_finished(await run(agent, "read both")).text == "Both read."
    assert turn_finished(await run(agent, "once more")).text == "Again."

    results = tool_result_texts(fake.requests[1])
    assert len(results) == 2 and "alpha" in results[0] and "beta" in results[1]
    assert len(tool_result_texts(fake.requests[-1])) == 3
