"""The turn loop on the scripted provider: tools, approvals, limits, retries, cancellation."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lull.engine.calls.approvals import DenyApprover
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.engine.waits import retry_notice
from lull.model.events import (
    AssistantText,
    AssistantThinking,
    Notice,
    RequestFinished,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from lull.model.messages import ToolCall, unanswered_calls
from lull.model.provider import ModelRequest, ProviderError, Retrying
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.processes import sigkill_group, wait_for_text, wait_until_gone
from tests.support import AgentFactory, run


def call(name: str, **arguments: object) -> ScriptedReply:
    """A reply that makes one tool call."""
    return ScriptedReply(tool_calls=(ScriptedCall(name, arguments),))


async def test_a_text_turn_streams_then_finishes(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(ScriptedReply(text="hello there, this is a longer answer", thinking="hm"))
    events = await run(make_agent(), "hi")
    kinds = [type(e) for e in events]
    assert kinds[0] is TurnStarted and kinds[-2:] == [RequestFinished, TurnFinished]
    assert "".join(e.text for e in events if isinstance(e, AssistantText)) == (
        "hello there, this is a longer answer"
    )
    assert any(isinstance(e, AssistantThinking) for e in events)
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn"


async def test_tool_results_go_back_to_the_model_in_one_message(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    for name in "ab":
        (workspace / f"{name}.txt").write_text(name * 3)
    provider.script(
        ScriptedReply(
            tool_calls=(
                ScriptedCall("read_file", {"path": "a.txt"}),
                ScriptedCall("read_file", {"path": "b.txt"}),
            )
        ),
        ScriptedReply(text="read both"),
    )
    agent = make_agent()
    events = await run(agent, "read them")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["read_file"] * 2
    last = provider.requests[-1].messages[-1]
    assert [r.content.split("\t")[-1].strip() for r in last.tool_results] == ["aaa", "bbb"]
    assert not unanswered_calls(agent.session.transcript)


async def test_plan_mode_refuses_writes(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    provider.script(call("run_shell_command", command="touch made"), ScriptedReply(text="planned"))
    agent = make_agent(mode="plan")
    events = await run(agent, "do it")
    assert not (workspace / "made").exists()
    result = next(e for e in events if isinstance(e, ToolFinished)).result
    assert result.is_error and "plan" in result.content


async def test_a_denied_call_gets_a_result_the_model_sees(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    provider.script(
        call("write_file", path="evil.txt", content="x"), ScriptedReply(text="not writing")
    )
    agent = make_agent(mode="default")
    agent.set_approver(DenyApprover("denied: no terminal to ask"))
    events = await run(agent, "write it")
    assert not (workspace / "evil.txt").exists()
    denial = next(e for e in events if isinstance(e, ToolFinished))
    assert denial.result.is_error and "no terminal" in denial.result.content
    sent = provider.requests[-1].messages[-1].tool_results[0]
    assert sent.is_error and "no terminal" in sent.content


async def test_cancel_mid_tool_leaves_a_valid_resumable_session(
    provider: ScriptedProvider, make_agent: AgentFactory, store: SessionStore, workspace: Path
) -> None:
    slow = "echo $$ > started; sleep 120"  # says when it really runs (not only announced)
    provider.script(call("run_shell_command", command=slow), ScriptedReply(text="after"))
    agent = make_agent()
    task = asyncio.create_task(run(agent, "run the slow thing"))
    pgid = int(await wait_for_text(workspace / "started", lambda: task.done()))
    try:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await wait_until_gone(pgid)  # the command was stopped, not left to finish
    finally:
        sigkill_group(pgid)
    assert not unanswered_calls(agent.session.transcript)
    assert "Cancelled" in agent.session.transcript[-1].tool_results[0].content
    agent.session.close()

    resumed = Session.resume(store, store.latest())
    assert resumed.transcript == agent.session.transcript
    again = make_agent(session=resumed)
    events = await run(again, "continue")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "after"


async def test_max_turns_stops_the_tool_loop(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(*[call("glob", pattern=f"*.{n}") for n in range(5)])  # no loop: all differ
    agent = make_agent(max_turns=3)
    events = await run(agent, "loop forever")
    assert len(provider.requests) == 3
    assert any(isinstance(e, Notice) and "maxTurns" in e.text for e in events)
    assert isinstance(events[-1], TurnFinished) and events[-1].stop_reason == "max_turns"
    assert not unanswered_calls(agent.session.transcript)


async def test_unknown_tool_gets_an_error_result_without_the_rollback_guard(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(call("teleport", to="mars"), ScriptedReply(text="sorry"))
    agent = make_agent(guardrails=GuardrailPolicy(rollback=False))
    events = await run(agent, "go")
    result = next(e for e in events if isinstance(e, ToolFinished)).result
    assert result.is_error and "teleport" in result.content
    assert isinstance(agent.session.transcript[1].parts[0], ToolCall)


async def test_a_cut_stream_is_retried_once_then_reported(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    answer = "a long answer, the first try of which is cut"
    provider.script(ScriptedReply(text=answer, cut_after=1), ScriptedReply(text=answer))
    agent = make_agent()
    events = await run(agent, "hi")
    assert any(isinstance(e, Notice) and "retrying" in e.text for e in events)
    assert isinstance(events[-1], TurnFinished) and events[-1].text == answer
    assert len(agent.session.transcript) == 2  # the cut attempt left nothing behind

    provider.script(*[ScriptedReply(text="cut again " * 10, cut_after=1)] * 2)
    events = await run(agent, "more")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.kind == "stream_cut"
    assert agent.session.transcript[-1].role == "user"  # no partial answer was kept


async def test_a_provider_error_ends_the_turn_with_its_message(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    error = ProviderError("rate_limit", "rate limited by the provider; try again in a minute")
    provider.script(ScriptedReply(error=error))
    agent = make_agent()
    events = await run(agent, "hi")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.kind == "rate_limit"
    assert failed.message == error.message
    assert [m.role for m in agent.session.transcript] == ["user"]


async def test_request_hooks_see_every_request_with_its_number(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(call("list_directory"), ScriptedReply(text="done"))
    agent = make_agent()
    seen: list[tuple[ModelRequest, int]] = []
    agent.request_hooks.append(lambda request, index: seen.append((request, index)))
    await run(agent, "look")
    assert [index for _, index in seen] == [1, 2]
    assert [request for request, _ in seen] == provider.requests
    assert seen[0][0].system == "You are a test." and seen[0][0].session_id == agent.session.id


async def test_the_request_shape_is_a_value_the_fitter_counts(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent()
    shape = agent.shape()
    assert shape.messages == () and shape.tools and shape.model == provider.model
    before = agent.fitter.local_tokens(shape)
    provider.script(ScriptedReply(text="an answer " * 50))
    await run(agent, "a question " * 50)
    assert agent.fitter.local_tokens(agent.shape()) > before  # the view grew, the shape did not
    assert agent.fitter.local_tokens(shape, []) == before
    assert agent.fitter.estimate(shape, []) < agent.estimate_context()


async def test_provider_waits_become_notices_only_past_two_seconds(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    waits = (Retrying("the server answered 503", 0.5, 1, 2), Retrying("still 503", 12.0, 2, 2))
    provider.script(ScriptedReply(text="up", retrying=waits))
    events = await run(make_agent(), "hi")
    assert [e.text for e in events if isinstance(e, Notice)] == [
        "still 503; retrying in 12 s (retry 2 of 2)"
    ]
    assert retry_notice(waits[0]) == "the server answered 503; retrying in 0 s (retry 1 of 2)"
    assert isinstance(events[-1], TurnFinished)
