"""Property test: no sequence of model replies makes the engine send an invalid history or
loop without bound (the scripted model repeats its replies forever; only lull's limits end
the turn)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lull.engine.calls.runner import ToolRunner
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.session import Session
from lull.model.events import TurnFailed, TurnFinished
from lull.model.messages import RAW_ARGUMENTS_KEY, Message, unanswered_calls
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.tools.base import ToolContext
from lull.tools.registry import ToolRegistry, default_registry

MAX_TURNS = 4
EXTRA = 6
LOOPING = "the same words again " * 200


def call(name: str, **args: object) -> ScriptedCall:
    return ScriptedCall(name, args)


REPLIES = st.sampled_from(
    [
        ScriptedReply(text="The answer."),
        ScriptedReply(text=""),
        ScriptedReply(thinking="only thinking"),
        ScriptedReply(text="As an AI, I cannot help with that."),
        ScriptedReply(text="<tool_call>\n{}\n</tool_call>"),
        ScriptedReply(text='{"name": "glob", "arguments": {}}'),
        ScriptedReply(tool_calls=(call("teleport"),)),
        ScriptedReply(tool_calls=(call("glob", pattern="*"),)),
        ScriptedReply(tool_calls=(call("glob", pattern="*.py"), call("glob", pattern="*"))),
        ScriptedReply(tool_calls=(call("read_file", path="missing.txt"),)),
        ScriptedReply(tool_calls=(call("read_file", file_path="missing.txt"),)),
        ScriptedReply(text="Cut mid-sent", stop_reason="max_tokens"),
        ScriptedReply(
            tool_calls=(call("glob", **{RAW_ARGUMENTS_KEY: '{"pat'}),), stop_reason="max_tokens"
        ),
        ScriptedReply(text=LOOPING),
        ScriptedReply(text="a stream that breaks off", cut_after=1),
        ScriptedReply(text="Sorry.", stop_reason="refusal"),
    ]
)


def assert_valid(request: ModelRequest) -> None:
    """What strict APIs demand of a request's history (see the context property tests), plus
    a final assistant message only when it is a partial answer to continue."""
    messages: Sequence[Message] = request.messages
    assert messages and messages[0].role == "user"
    assert all(m.parts for m in messages)
    if messages[-1].role == "assistant":
        assert request.continue_final and not messages[-1].tool_calls
        messages = messages[:-1]
    assert messages[-1].role == "user"
    assert not unanswered_calls(list(messages))
    seen: set[str] = set()
    answered: set[str] = set()
    for index, message in enumerate(messages):
        for tool_call in message.tool_calls:
            assert tool_call.id not in seen  # unique ids
            seen.add(tool_call.id)
        if message.role != "assistant" or not message.tool_calls:
            continue
        nxt = messages[index + 1]
        assert nxt.role == "user"
        ids = sorted(r.call_id for r in nxt.tool_results)
        assert ids == sorted(c.id for c in message.tool_calls)
        answered.update(ids)
    assert answered == {r.call_id for m in messages for r in m.tool_results}


def build(workspace: Path, replies: list[ScriptedReply]) -> tuple[Agent, ScriptedProvider]:
    forever = itertools.cycle(replies)
    provider = ScriptedProvider(respond=lambda _request: next(forever))
    session = Session.create(None, provider=provider.name, model=provider.model)
    context = ToolContext(workspace=workspace, output_dir=workspace / ".out")
    registry: ToolRegistry = default_registry()
    runner = ToolRunner(registry, context, "yolo")
    config = AgentConfig(
        system="You are a test.",
        max_turns=MAX_TURNS,
        max_output_tokens=1000,
        guardrails=GuardrailPolicy(extra_requests=EXTRA),
    )
    return Agent(session, provider, runner, config), provider


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(replies=st.lists(REPLIES, min_size=1, max_size=8))
def test_any_replies_give_valid_requests_and_a_bounded_turn(
    replies: list[ScriptedReply], tmp_path: Path
) -> None:
    agent, provider = build(tmp_path, replies)

    async def turn() -> list[object]:
        return [event async for event in agent.run_turn("do the task")]

    events = asyncio.run(asyncio.wait_for(turn(), timeout=30))
    assert isinstance(events[-1], TurnFinished | TurnFailed)
    # every request is counted against maxTurns + the extra ones; a broken stream is
    # retried once inside its request
    assert len(provider.requests) <= 2 * (MAX_TURNS + EXTRA)
    kept = {m.id for m in agent.session.transcript}
    for request in provider.requests:
        assert_valid(request)
        sent = [m for m in request.messages if m.role == "assistant" and m.origin == "model"]
        if request.continue_final:
            sent = sent[:-1]  # the partial answer being continued
        assert {m.id for m in sent} <= kept  # never a rolled-back or discarded reply
    assert not unanswered_calls(agent.session.transcript)
