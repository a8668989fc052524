"""Rollback on the scripted provider: bad replies never happened, are asked again, and
are kept (marked) in the session file only."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.sessions.load import load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import AttemptDiscarded, GuardrailTriggered, TurnFinished
from lull.model.messages import Message, Text
from lull.model.provider import ModelRequest
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

BAD_REPLIES = {
    "tool_call_tag": ScriptedReply(
        text='<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'
    ),
    "function_tag": ScriptedReply(text="<function=read_file>\n<parameter=path>a.txt</parameter>"),
    "mcp_tag": ScriptedReply(text="<use_mcp_tool>\n<tool_name>read_file</tool_name>"),
    "bare_json": ScriptedReply(text='{"name": "read_file", "arguments": {"path": "a.txt"}}'),
    "as_an_ai": ScriptedReply(text="As an AI, I cannot browse your files."),
    "i_cannot": ScriptedReply(text="I cannot help with that request."),
    "i_cant": ScriptedReply(text="I can't help with modifying code."),
    "empty": ScriptedReply(text=""),
    "thinking_only": ScriptedReply(thinking="hmm, what now"),
    "unknown_tool": ScriptedReply(tool_calls=(ScriptedCall("teleport", {"to": "mars"}),)),
    "provider_refusal": ScriptedReply(text="Sorry.", stop_reason="refusal"),
}
REASONS = {
    "tool_call_tag": "tool_call_as_text",
    "function_tag": "tool_call_as_text",
    "mcp_tag": "tool_call_as_text",
    "bare_json": "tool_call_as_text",
    "as_an_ai": "refusal",
    "i_cannot": "refusal",
    "i_cant": "refusal",
    "empty": "empty",
    "thinking_only": "empty",
    "unknown_tool": "unknown_tool",
    "provider_refusal": "refusal",
}


def texts(request: ModelRequest) -> list[str]:
    """Every text of a request's messages, in order."""
    return [m.text for m in request.messages]


@pytest.mark.parametrize("kind", sorted(BAD_REPLIES))
async def test_a_bad_reply_is_rolled_back_and_asked_again(
    kind: str, provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(BAD_REPLIES[kind], ScriptedReply(text="Here is the answer."))
    agent = make_agent()
    events = await run(agent, "what is in a.txt?")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "Here is the answer."
    guard = [e for e in events if isinstance(e, GuardrailTriggered)]
    assert [(e.kind, e.reason) for e in guard] == [("rollback", REASONS[kind])]
    assert len(provider.requests) == 2
    retry = provider.requests[1]
    assert all(m.role == "user" for m in retry.messages)  # the bad reply is not in it
    assert retry.messages[-1].origin == "synthetic" and retry.messages[-1].text
    assert retry.messages[:-1] == provider.requests[0].messages  # the prefix is untouched
    # the transcript holds the prompt and the kept answer only; the note never got in
    assert [m.text for m in agent.session.transcript] == [
        "what is in a.txt?",
        "Here is the answer.",
    ]
    assert [r.reason for r in agent.session.record.rollbacks] == [REASONS[kind]]


async def test_streamed_text_of_a_rolled_back_reply_is_marked_discarded(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(BAD_REPLIES["as_an_ai"], ScriptedReply(text="fine"))
    events = await run(make_agent(), "go")
    discarded = [e for e in events if isinstance(e, AttemptDiscarded)]
    assert [e.text for e in discarded] == ["As an AI, I cannot browse your files."]
    assert "rolled back" in discarded[0].reason


@pytest.mark.parametrize(
    "text",
    [
        "Qwen writes calls like this:\n```\n<tool_call>\n{}\n</tool_call>\n```",
        "Use the `<tool_call>` tag in your template.",
        "I cannot find a file named a.txt in the workspace.",
        '{"name": "lull", "version": "1.0"}',
    ],
)
async def test_answers_that_only_look_suspicious_are_kept(
    text: str, provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(ScriptedReply(text=text))
    events = await run(make_agent(), "explain")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == text
    assert len(provider.requests) == 1


async def test_rollbacks_do_not_count_against_max_turns(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha")
    provider.script(
        BAD_REPLIES["empty"],
        BAD_REPLIES["tool_call_tag"],
        ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": "a.txt"}),)),
        BAD_REPLIES["i_cannot"],
        BAD_REPLIES["unknown_tool"],
        ScriptedReply(text="a.txt says alpha"),
    )
    agent = make_agent(max_turns=2)
    events = await run(agent, "read a.txt")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn"
    assert finished.text == "a.txt says alpha"
    assert len(provider.requests) == 6
    assert len(agent.session.record.rollbacks) == 4


async def test_five_rollbacks_in_a_row_then_the_turn_ends(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(*[BAD_REPLIES["empty"]] * 6, ScriptedReply(text="never asked"))
    agent = make_agent()
    events = await run(agent, "hello?")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "rollbacks"
    assert "rolled back 5 times in a row" in finished.detail
    assert len(provider.requests) == 6
    assert agent.session.transcript[-1].role == "user"  # nothing bad was kept
    assert len(agent.session.record.rollbacks) == 6


async def test_the_request_budget_is_max_turns_plus_the_extra_requests(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    bad, good = BAD_REPLIES["empty"], ScriptedReply(tool_calls=(ScriptedCall("glob", {}),))
    provider.script(bad, bad, bad, good, bad, ScriptedReply(text="unreached"))
    policy = GuardrailPolicy(extra_requests=3)
    agent = make_agent(max_turns=2, guardrails=policy)
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "rollbacks"
    assert "5 model requests in one turn (maxTurns 2 + 3" in finished.detail
    assert len(provider.requests) == 5


async def test_rolled_back_replies_are_saved_marked_and_never_sent_after_a_resume(
    provider: ScriptedProvider, make_agent: AgentFactory, store: SessionStore
) -> None:
    provider.script(BAD_REPLIES["tool_call_tag"], BAD_REPLIES["as_an_ai"], ScriptedReply(text="ok"))
    agent = make_agent()
    await run(agent, "first")
    path = agent.session.path
    assert path is not None
    agent.session.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    marked = [line for line in lines if line["type"] == "rollback"]
    assert [m["reason"] for m in marked] == ["tool_call_as_text", "refusal"]
    assert "<tool_call>" in marked[0]["message"]["parts"][0]["text"]
    record = load_session(path)
    assert [m.text for m in record.messages] == ["first", "ok"]
    assert len(record.rollbacks) == 2

    resumed = make_agent(session=Session.resume(store, path))
    provider.script(ScriptedReply(text="second answer"))
    await run(resumed, "second")
    sent = " ".join(texts(provider.requests[-1]))
    assert "<tool_call>" not in sent and "As an AI" not in sent
    assert texts(provider.requests[-1]) == ["first", "ok", "second"]


async def test_each_rollback_is_a_debug_log_line(
    provider: ScriptedProvider, make_agent: AgentFactory, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(BAD_REPLIES["unknown_tool"], ScriptedReply(text="ok"))
    with caplog.at_level(logging.INFO, logger="lull.guardrails"):
        await run(make_agent(), "go")
    assert any(
        "rolled back" in r.getMessage() and "teleport" in r.getMessage() for r in caplog.records
    )


async def test_the_note_of_an_unknown_tool_names_the_real_ones(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(BAD_REPLIES["unknown_tool"], ScriptedReply(text="ok"))
    await run(make_agent(), "go")
    note = provider.requests[1].messages[-1]
    assert "'teleport'" in note.text and "read_file" in note.text and "\n" not in note.text


async def test_with_rollback_off_every_reply_is_trusted(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(BAD_REPLIES["tool_call_tag"])
    agent = make_agent(guardrails=GuardrailPolicy(rollback=False))
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and "<tool_call>" in finished.text
    assert len(provider.requests) == 1


def test_a_rolled_back_message_round_trips_through_the_file(tmp_path: Path) -> None:
    from lull.model.rollbacks import RolledBack, rollback_from_dict, rollback_to_dict

    rolled = RolledBack(Message("assistant", (Text("As an AI"),)), "refusal", "'As an AI'", 5.0)
    assert rollback_from_dict(json.loads(json.dumps(rollback_to_dict(rolled)))) == rolled
