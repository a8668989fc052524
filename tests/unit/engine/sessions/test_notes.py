"""Session notes end to end: written by the model's note tool or by the user, never cleared,
restated after a compression, derived from the transcript (a resumed session has them)."""

from __future__ import annotations

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.idle import IdlePolicy
from lull.engine.sessions.load import load_session
from lull.engine.sessions.notes import record_user_note, session_notes
from lull.engine.sessions.session import Session
from lull.model.messages import (
    Message,
    ToolCall,
    is_cleared_text,
    unanswered_calls,
)
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory, Clock, run, summary_of


def respond(request: ModelRequest) -> ScriptedReply:
    if SUMMARY_MARKER in last_user_text(request):
        return ScriptedReply(text=summary_of("Keep notes."))
    # long (and not repeating) enough that a summary makes room
    return ScriptedReply(text=" ".join(f"finding{n}" for n in range(400)))


async def test_notes_survive_idle_cleanup_compression_and_resume(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    clock = Clock()
    agent = make_agent(clock=clock, idle=IdlePolicy(tool_results_num_to_keep=0))
    note = ScriptedCall("note", {"key": "bug", "text": "the bug is in parse_date"})
    provider.script(ScriptedReply(tool_calls=(note,)), ScriptedReply(text="noted"))
    await run(agent, "remember where the bug is")
    record_user_note(agent.session, "tests", "run with make check")
    assert [(n.key, n.by) for n in session_notes(agent.session).values()] == [
        ("bug", "model"),
        ("tests", "user"),
    ]
    provider.respond = respond
    clock.advance_minutes(90)
    await run(agent, "back " * 10)
    results = [r for m in provider.requests[-1].messages for r in m.tool_results]
    assert results and not is_cleared_text(results[0].content)  # a note is never cleared

    for n in range(3):
        await run(agent, f"more {n} " * 10)
    [e async for e in agent.compact()]
    await run(agent, "after the compression")
    first = provider.requests[-1].messages[0].text
    assert "- bug: the bug is in parse_date\n- tests: run with make check" in first

    assert agent.session.path is not None
    resumed = Session(load_session(agent.session.path), None)
    assert session_notes(resumed).keys() == {"bug", "tests"}


async def test_a_user_note_closes_an_interrupted_tool_call_first(
    make_agent: AgentFactory,
) -> None:
    agent = make_agent()
    agent.session.add(
        Message("assistant", (ToolCall("c1", "read_file", {"path": "a"}),), origin="model")
    )
    record_user_note(agent.session, "k", "v")
    assert not unanswered_calls(agent.session.transcript)
    assert agent.session.transcript[-1].text.endswith("k: v")
