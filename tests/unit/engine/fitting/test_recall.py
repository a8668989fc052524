"""Recall on the scripted provider: a cleared result and a summarised span come back as new
tool results (the cached prefix untouched), in a resumed session too."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.idle import IdlePolicy
from lull.engine.fitting.recall import RecallTool
from lull.engine.loop.agent import Agent
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.edits import ClearToolResults, Summary
from lull.model.events import ContextEdited, Event
from lull.model.messages import cleared_result_text
from lull.model.provider import ModelRequest
from lull.providers.scripted import (
    ScriptedCall,
    ScriptedProvider,
    ScriptedReply,
    echo_reply,
    last_user_text,
)
from tests.support import AgentFactory, Clock, run, summary_of

CONTENT = "a line of the file that is worth keeping around\n" * 20
KEEP_ONE = IdlePolicy(tool_results_num_to_keep=1)


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = ["a.txt", "b.txt", "c.txt"]
    for name in names:
        (workspace / name).write_text(f"{name}\n{CONTENT}")
    return names


def with_recall(agent: Agent) -> Agent:
    agent.tools.registry.add(RecallTool(lambda: agent.session))
    return agent


def reads(names: list[str]) -> list[ScriptedReply]:
    steps = [
        ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": n}, id=f"call_{n[0]}"),))
        for n in names
    ]
    return [*steps, ScriptedReply(text="all read")]


def recall_then_answer(recall_id: str) -> list[ScriptedReply]:
    call = ScriptedCall("recall", {"id": recall_id}, id="call_recall")
    return [ScriptedReply(tool_calls=(call,)), ScriptedReply(text="got it back")]


def results_of(request: ModelRequest) -> dict[str, str]:
    return {r.call_id: r.content for m in request.messages for r in m.tool_results}


def edits_of(events: list[Event], kind: type) -> list[object]:
    return [e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, kind)]


async def test_a_cleared_result_is_recalled_by_the_id_its_sentinel_names(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    agent = with_recall(make_agent(clock=clock, idle=KEEP_ONE))
    provider.script(*reads(files))
    await run(agent, "read the files")
    clock.advance_minutes(10)  # the cache is cold: the cleanup clears a and b
    provider.script(*recall_then_answer("call_a"))
    events = await run(agent, "what was in a.txt?")
    assert edits_of(events, ClearToolResults)
    before, after = provider.requests[-2], provider.requests[-1]
    assert results_of(before)["call_a"] == cleared_result_text("call_a")
    original = results_of(provider.requests[1])["call_a"]  # what the first read returned
    assert "a.txt" in original and results_of(after)["call_recall"] == original
    assert list(after.messages[: len(before.messages)]) == list(before.messages)  # appended


async def test_a_summarised_span_is_recalled_in_a_resumed_session(
    provider: ScriptedProvider,
    make_agent: AgentFactory,
    files: list[str],
    store: SessionStore,
    workspace: Path,
) -> None:
    summary = summary_of("Read the files.", "Keep going.")

    def respond(request: ModelRequest) -> ScriptedReply:
        if SUMMARY_MARKER in last_user_text(request):
            return ScriptedReply(text=summary)
        return echo_reply(request)

    provider.respond = respond
    for name in files:  # large enough that a summary makes the context smaller
        (workspace / name).write_text(f"{name}\n{CONTENT * 4}")
    clock = Clock()
    agent = with_recall(make_agent(clock=clock))
    provider.script(*reads(files))
    await run(agent, "read the files")
    compressed = [e async for e in agent.compact("the files")]
    [edit] = edits_of(compressed, Summary)
    assert isinstance(edit, Summary)
    path = agent.session.path
    assert path is not None
    agent.session.close()

    resumed = with_recall(make_agent(clock=clock, session=Session.resume(store, path)))
    provider.script(*recall_then_answer(edit.id))
    await run(resumed, "what did you read before?")
    sent = provider.requests[-1]
    assert f"recall id {edit.id}" in sent.messages[0].text  # the summary names its id
    recalled = results_of(sent)["call_recall"]
    assert "read the files" in recalled and "(tool call call_a: read_file" in recalled
    assert "1\ta.txt" in recalled and "worth keeping around" in recalled


async def test_an_unknown_id_is_a_one_line_error(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = with_recall(make_agent())
    provider.script(*recall_then_answer("call_nope"))
    await run(agent, "recall something")
    result = provider.requests[-1].messages[-1].tool_results[0]
    assert result.is_error and "no tool call or summary with id 'call_nope'" in result.content
