"""Guardrails over the wire: the official SDKs against the strict fake, both protocols.

What the engine decides is tested on the scripted provider (``tests/unit/engine/guardrails``);
these tests guard what each protocol carries: a rolled-back reply never sent, the
corrective note, a prefill, ``continue_final_message``, a larger output limit,
``tool_choice`` none, repaired arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lull.engine.loop.attempts import OutcomeWatch, failure_summary
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.edits import Summary
from lull.model.events import (
    ContextEdited,
    GuardrailTriggered,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)
from lull.model.provider import ThinkingConfig
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.quirks import ServerQuirks
from tests.fakes.script import last_user_text
from tests.support import AgentFactory, run, summary_of

PROVIDERS = ["anthropic", "openai"]
TEXT_CALL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'


def wire_texts(body: dict[str, Any]) -> str:
    """Every text a request body carries in its messages (either protocol)."""
    found: list[str] = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            found.append(content)
        elif isinstance(content, list):
            found += [b.get("text", "") for b in content if isinstance(b, dict)]
    return "\n".join(found)


def assistant_texts(body: dict[str, Any]) -> list[str]:
    """The text of each assistant message of a request body."""
    texts = []
    for message in body["messages"]:
        if message["role"] != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        texts.append(content or "")
    return texts


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_a_rolled_back_reply_is_never_sent_and_the_note_is_valid(
    vendor: str, fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(
        Reply(text=TEXT_CALL),
        Reply(tool_calls=[ToolUse("teleport", {"to": "mars"})]),
        Reply(text="There is no a.txt."),
    )
    agent = make_agent(vendor)
    events = await run(agent, "what is in a.txt?")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "There is no a.txt."
    assert len(fake.requests) == 3  # the fake accepted every request
    for body in fake.requests[1:]:
        assert "<tool_call>" not in wire_texts(body) and "tool_use" not in str(body["messages"])
        assert assistant_texts(body) == []  # no assistant message at all: nothing was kept
    assert "wrote a tool call as text" in last_user_text(fake.requests[1])
    assert "'teleport'" in last_user_text(fake.requests[2])


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_a_resumed_session_never_sends_its_rolled_back_replies(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, tmp_path: Path, workspace: Path
) -> None:
    fake.script(Reply(text="As an AI, I cannot."), Reply(text="first answer"))
    agent = make_agent(vendor)
    await run(agent, "one")
    path = agent.session.path
    assert path is not None and len(agent.session.record.rollbacks) == 1
    agent.session.close()
    store = SessionStore(tmp_path / "sessions", workspace)
    resumed = make_agent(vendor, session=Session.resume(store, path))
    fake.script(Reply(text="second answer"))
    await run(resumed, "two")
    assert "As an AI" not in wire_texts(fake.requests[-1])
    assert assistant_texts(fake.requests[-1]) == ["first answer"]


async def test_anthropic_continues_a_cut_answer_with_a_prefill(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(
        Reply(text="The first part, \n", stop_reason="max_tokens"),
        Reply(text="\nthe second part, ", stop_reason="max_tokens"),
        Reply(text=" and the end."),
    )
    agent = make_agent("anthropic")
    events = await run(agent, "write")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "end_turn"
    assert finished.text == "The first part,\nthe second part, and the end."
    prefills = [body["messages"][-1] for body in fake.requests[1:]]
    assert [p["role"] for p in prefills] == ["assistant", "assistant"]
    assert prefills[0]["content"][-1]["text"] == "The first part,"  # no trailing whitespace
    assert [m.text for m in agent.session.transcript] == ["write", finished.text]


async def test_a_model_without_prefill_is_asked_again_with_a_larger_limit(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(Reply(text="half", stop_reason="max_tokens"), Reply(text="whole answer"))
    agent = make_agent("anthropic", model="claude-opus-4-6", max_output_tokens=2000)
    events = await run(agent, "write")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "whole answer"
    assert [body["max_tokens"] for body in fake.requests] == [2000, 2200]
    assert fake.requests[1]["messages"][-1]["role"] == "user"


async def test_a_refused_prefill_falls_back_to_a_larger_limit_and_is_remembered(
    fake: FakeServer, make_agent: AgentFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a model lull does not know to refuse prefills: the API's 400 teaches it
    monkeypatch.setattr("tests.fakes.anthropic_validate.NO_PREFILL_MODELS", ("claude-test",))
    fake.script(Reply(text="half", stop_reason="max_tokens"), Reply(text="whole"))
    agent = make_agent("anthropic", max_output_tokens=2000)
    events = await run(agent, "write")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "whole"
    assert agent.server_facts.prefill_refused
    assert [body["max_tokens"] for body in fake.requests] == [2000, 2200]  # 400s are not kept
    assert fake.requests[1]["messages"][-1]["role"] == "user"


async def test_with_thinking_on_anthropic_gets_a_larger_limit_not_a_prefill(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(
        Reply(text="half", thinking="plan", stop_reason="max_tokens"),
        Reply(text="whole", thinking="plan again"),
    )
    agent = make_agent("anthropic", thinking=ThinkingConfig(True, 1024), max_output_tokens=4000)
    events = await run(agent, "write")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "whole"
    assert fake.requests[1]["messages"][-1]["role"] == "user"
    assert fake.requests[1]["max_tokens"] == 4400


async def test_vllm_continues_with_continue_final_message(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.quirks = ServerQuirks.vllm()
    fake.script(Reply(text="def f():\n", stop_reason="max_tokens"), Reply(text="    return 1"))
    agent = make_agent("vllm")
    events = await run(agent, "code")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "def f():    return 1"
    body = fake.requests[1]
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert body["messages"][-1] == {"role": "assistant", "content": "def f():"}


async def test_openai_is_asked_again_with_a_ten_percent_larger_limit(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(Reply(text="half", stop_reason="max_tokens"), Reply(text="whole"))
    agent = make_agent("openai", max_output_tokens=1000)
    events = await run(agent, "write")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "whole"
    assert [b["max_completion_tokens"] for b in fake.requests] == [1000, 1100]
    assert "continue_final_message" not in fake.requests[1]
    assert [g.reason for g in events if isinstance(g, GuardrailTriggered)] == ["larger_limit"]


def test_openai_rejects_continue_final_message_like_the_real_service() -> None:
    from tests.fakes.errors import WireError

    with pytest.raises(WireError, match="Unrecognized request argument supplied"):
        ServerQuirks().check_continuation({"continue_final_message": True, "messages": []})
    with pytest.raises(WireError, match="Cannot set both"):
        ServerQuirks.vllm().check_continuation(
            {"continue_final_message": True, "messages": [{"role": "assistant"}]}
        )


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_the_failure_summary_request_has_tools_switched_off(
    vendor: str, fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("glob", {"pattern": "*"})]),
        Reply(text="Failure type: blocked\nWhat happened: x\nUseful findings: y"),
    )
    agent = make_agent(vendor, max_turns=1)
    watch = OutcomeWatch()
    for event in await run(agent, "go"):
        watch.take(event)
    items = [item async for item in failure_summary(agent, watch)]
    assert items[-1].failure_type == "blocked"  # type: ignore[union-attr]
    body = fake.requests[-1]
    assert body["tool_choice"] in ({"type": "none"}, "none") and body["tools"]
    assert "Do NOT call any tools" in last_user_text(body)
    assert len(agent.session.transcript) == 3  # prompt, call, result: nothing of the summary


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_repaired_arguments_run_and_the_call_is_sent_back_as_the_model_made_it(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"file_path": "a.txt"})]), Reply(text="alpha")
    )
    events = await run(make_agent(vendor), "read a.txt")
    [started] = [e for e in events if isinstance(e, ToolStarted)]
    assert started.repairs == ("file_path -> path",) and started.summary == "a.txt"
    [done] = [e for e in events if isinstance(e, ToolFinished)]
    assert not done.result.is_error and "alpha" in done.result.content
    assert "file_path" in str(fake.requests[1]["messages"])  # the model's own call, unchanged


@pytest.mark.parametrize("vendor", PROVIDERS)
@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (Reply(text=""), "empty"),
        (Reply(text="I can't help with that."), "refusal"),
        (Reply(text='{"name": "glob", "arguments": {"pattern": "*"}}'), "tool_call_as_text"),
        (Reply(text="<function=glob>\n<parameter=pattern>*</parameter>"), "tool_call_as_text"),
        (Reply(text="<use_mcp_tool>\n<tool_name>glob</tool_name>"), "tool_call_as_text"),
    ],
)
async def test_every_rollback_trigger_over_the_wire(
    vendor: str, bad: Reply, reason: str, fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(bad, Reply(text="answered"))
    agent = make_agent(vendor, max_turns=1)  # the rollback does not use up the one turn
    events = await run(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "answered"
    assert [e.reason for e in events if isinstance(e, GuardrailTriggered)] == [reason]
    assert assistant_texts(fake.requests[1]) == []


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_duplicate_reads_get_a_pointer_and_loops_stop_over_the_wire(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha " * 300)
    read = Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"})])
    fake.script(read, read, read, Reply(text="unreached"))
    agent = make_agent(vendor)
    events = await run(agent, "read")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "doom_loop"
    assert "read_file(a.txt)" in finished.detail
    kinds = [e.kind for e in events if isinstance(e, GuardrailTriggered)]
    assert kinds == ["duplicate", "doom_loop"]
    pointer = str(fake.requests[2]["messages"][-1])
    assert "Not run again" in pointer and "alpha" not in pointer
    assert len(fake.requests) == 3


@pytest.mark.parametrize("vendor", PROVIDERS)
async def test_a_looping_stream_is_cut_off_over_the_wire(
    vendor: str, fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(Reply(text="check again. " * 3000, chunk_size=13), Reply(text="All good."))
    agent = make_agent(vendor)
    events = await run(agent, "check")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "All good."
    assert [e.kind for e in events if isinstance(e, GuardrailTriggered)] == ["repetition"]
    assert "check again." not in wire_texts(fake.requests[1])
    assert len(fake.requests) == 2


def _limits(fake: FakeServer) -> list[int]:
    return [b.get("max_completion_tokens") or b.get("max_tokens") for b in fake.requests]


async def test_an_answer_cut_by_the_window_is_kept_not_regenerated(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.script(Reply(text="a long answer that the window cut", stop_reason="max_tokens"))
    agent = make_agent("openai", context_window=4096, max_output_tokens=8192)
    events = await run(agent, "explain " + "the code " * 1200)
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.text == "a long answer that the window cut"
    (limit,) = _limits(fake)  # one request: nothing regenerated
    assert limit < 8192
    (cut,) = [e for e in events if isinstance(e, GuardrailTriggered)]
    assert cut.reason == "cut_by_window" and f"cut at {limit:,} tokens" in cut.text
    assert "kept as it is" in cut.text


async def test_a_reply_cut_before_any_text_by_the_window_is_asked_again_after_compressing(
    fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n} of the file\n" for n in range(250)))
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "big.txt"})]),
        Reply(text="noted"),
        Reply(text="", stop_reason="max_tokens"),
        Reply(text=summary_of("read big.txt")),
        Reply(text="done"),
    )
    agent = make_agent("openai", context_window=8000, max_output_tokens=8192)
    await run(agent, "read big.txt")
    events = await run(agent, "now sum it up")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "done"
    lines = [e for e in events if isinstance(e, GuardrailTriggered)]
    assert [e.reason for e in lines] == ["compress"]
    assert "cut before any text" in lines[0].text
    assert "compressing and asking again (1 of" in lines[0].text
    assert any(isinstance(e, ContextEdited) and isinstance(e.edit, Summary) for e in events)
    limits = _limits(fake)
    assert limits[-1] > limits[2]  # the compressed prompt leaves more room
