"""Answers cut at the output limit are continued, on the scripted provider."""

from __future__ import annotations

import math

from lull.engine.guardrails.continuation import continuation_mode, cut_kind
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.model.events import AttemptDiscarded, GuardrailTriggered, TurnFinished
from lull.model.messages import RAW_ARGUMENTS_KEY, Text, Thinking, ToolCall
from lull.model.provider import ProviderError
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

LIMIT = 1000


def cut(text: str) -> ScriptedReply:
    """A reply stopped at the output limit."""
    return ScriptedReply(text=text, stop_reason="max_tokens")


async def test_a_three_part_continuation_is_joined_into_one_message(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(cut("Part one, "), cut(" part two, "), ScriptedReply(text=" part three."))
    agent = make_agent(max_output_tokens=LIMIT)
    events = await run(agent, "write it all")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn"
    assert finished.text == "Part one, part two, part three."
    prefills = [r.messages[-1] for r in provider.requests[1:]]
    assert [(m.role, m.text) for m in prefills] == [
        ("assistant", "Part one,"),
        ("assistant", "Part one, part two,"),
    ]
    assert [r.continue_final for r in provider.requests] == [False, True, True]
    assert [m.text for m in agent.session.transcript] == [
        "write it all",
        "Part one, part two, part three.",
    ]
    notices = [e for e in events if isinstance(e, GuardrailTriggered)]
    assert [(e.kind, e.reason) for e in notices] == [("continuation", "prefill")] * 2
    assert not any(isinstance(e, AttemptDiscarded) for e in events)


async def test_at_most_three_continuations_then_the_cut_answer_is_kept(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(cut("a"), cut("b"), cut("c"), cut("d"), ScriptedReply(text="unreached"))
    agent = make_agent(max_output_tokens=LIMIT)
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "max_tokens"
    assert finished.text == "abcd" and len(provider.requests) == 4


async def test_other_servers_are_asked_again_with_a_ten_percent_larger_limit(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(cut("half an ans"), cut("most of an answ"), ScriptedReply(text="all of it"))
    agent = make_agent(vendor="openai", max_output_tokens=LIMIT)
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "all of it"
    limits = [r.max_output_tokens for r in provider.requests]
    assert limits == [LIMIT, math.ceil(LIMIT * 1.1), math.ceil(LIMIT * 1.1**2)]
    assert all(not r.continue_final for r in provider.requests)
    assert [e.text for e in events if isinstance(e, AttemptDiscarded)] == [
        "half an ans",
        "most of an answ",
    ]
    assert [m.text for m in agent.session.transcript] == ["go", "all of it"]


async def test_vllm_continues_the_final_message(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(cut("def f():\n"), ScriptedReply(text="    return 1\n"))
    agent = make_agent(vendor="vllm", max_output_tokens=LIMIT)
    events = await run(agent, "code")
    assert provider.requests[1].continue_final
    assert provider.requests[1].messages[-1].text == "def f():"
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "def f():    return 1\n"


async def test_a_cut_inside_tool_arguments_is_discarded_and_asked_again_larger(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: object
) -> None:
    broken = ScriptedReply(
        text="Writing the file.",
        tool_calls=(ScriptedCall("write_file", {RAW_ARGUMENTS_KEY: '{"path": "a.txt", "con'}),),
        stop_reason="max_tokens",
    )
    provider.script(broken, ScriptedReply(text="Too long to write; here is a summary."))
    agent = make_agent(max_output_tokens=LIMIT)
    events = await run(agent, "write")
    assert provider.requests[1].max_output_tokens == math.ceil(LIMIT * 1.1)
    assert not provider.requests[1].continue_final
    assert any(isinstance(e, AttemptDiscarded) for e in events)
    assert not any(m.tool_calls for m in agent.session.transcript)


async def test_a_model_without_prefill_falls_back_to_a_larger_limit(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    refused = ProviderError("bad_request", "This model does not support assistant message prefill")
    provider.script(cut("start of"), ScriptedReply(error=refused), ScriptedReply(text="whole"))
    agent = make_agent(max_output_tokens=LIMIT)
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "whole"
    assert agent.server_facts.prefill_refused
    assert not provider.requests[2].continue_final
    assert provider.requests[2].max_output_tokens > LIMIT

    provider.script(cut("again cut"), ScriptedReply(text="again whole"))
    await run(agent, "more")
    assert not provider.requests[-1].continue_final  # learned: no prefill for this model


async def test_with_continuation_off_a_cut_answer_stays_cut(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(cut("cut here"))
    agent = make_agent(guardrails=GuardrailPolicy(continuation=False))
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "max_tokens"
    assert len(provider.requests) == 1


def test_how_each_server_continues() -> None:
    assert (
        continuation_mode("anthropic", "claude-sonnet-4-5", thinking=False, prefill_refused=False)
        == "prefill"
    )
    assert (
        continuation_mode("anthropic", "claude-opus-4-6", thinking=False, prefill_refused=False)
        == "larger_limit"
    )
    assert (
        continuation_mode("anthropic", "claude-sonnet-4-5", thinking=True, prefill_refused=False)
        == "larger_limit"
    )
    assert (
        continuation_mode("anthropic", "claude-sonnet-4-5", thinking=False, prefill_refused=True)
        == "larger_limit"
    )
    assert (
        continuation_mode("sglang", "qwen3", thinking=True, prefill_refused=False)
        == "continue_final_message"
    )
    assert (
        continuation_mode("ollama", "qwen3", thinking=False, prefill_refused=False)
        == "larger_limit"
    )


def test_where_a_reply_was_cut() -> None:
    assert cut_kind((Text("abc"),)) == "text"
    assert cut_kind((Thinking("long thoughts"),)) == "no_text"
    assert cut_kind((Text("x"), ToolCall("c", "glob", {"pattern": "*"}))) == "complete"
    assert cut_kind((ToolCall("c", "glob", {RAW_ARGUMENTS_KEY: "{"}),)) == "tool_arguments"
