"""A 200 response with an empty stream is its own error: near the window it compresses
and retries, far from it it is retried once and then reported, and a llama.cpp overflow ends
in an answer, not a cut stream."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.model.edits import Summary
from lull.model.events import (
    ContextEdited,
    TurnFailed,
    TurnFinished,
)
from lull.model.provider import (
    ProviderError,
)
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests.fakes import FakeServer, Reply, ServerQuirks
from tests.fakes.cache import openai_units
from tests.reliability.helpers import (
    FILLER_OK,
    Waits,
    answer,
    local_on,
    long_history,
    notices,
    server_agent,
)
from tests.support import run, summary_of


async def test_an_empty_200_stream_is_its_own_error(fake: FakeServer, waits: Waits) -> None:
    fake.quirks = ServerQuirks.llama_cpp_python()
    fake.max_context_tokens = 20
    provider = local_on(fake.url + "/v1", waits)
    with pytest.raises(ProviderError) as info:
        await answer(provider, "a question " * 50)
    assert info.value.kind == "empty_stream"
    assert "answered 200 OK with an empty stream" in info.value.message
    fake.max_context_tokens = None
    fake.cut_next_stream(after_events=0)  # headers, then the socket closes: the same thing
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "empty_stream"


EMPTY = ProviderError("empty_stream", "the server answered 200 OK with an empty stream")
EMPTY_REPLY = ScriptedReply(error=EMPTY)


async def test_an_empty_stream_near_the_window_compresses_and_retries(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider(long_history(6, 300))
    agent = server_agent(
        provider,
        workspace,
        tmp_path,
        context_window=4000,
        max_output_tokens=256,
        guardrails=FILLER_OK,
    )
    for turn in range(6):
        await run(agent, f"question {turn}: " + "word " * 100)
    assert 0.7 <= agent.estimate_context() / 4000 < 0.8  # near, but lull would not compress
    provider.script(
        EMPTY_REPLY, ScriptedReply(text=summary_of("summary")), ScriptedReply(text="ok")
    )
    events = await run(agent, "one more")
    assert any(
        "probably the context size: compressing and retrying once" in n for n in notices(events)
    )
    assert isinstance(next(e.edit for e in events if isinstance(e, ContextEdited)), Summary)
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "ok"


async def test_an_empty_stream_far_from_the_window_is_retried_once_then_reported(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider([EMPTY_REPLY, ScriptedReply(text="second try")])
    agent = server_agent(provider, workspace, tmp_path)
    events = await run(agent, "hi")
    assert notices(events) == [f"{EMPTY.message}; retrying"]
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "second try"
    assert not [e for e in events if isinstance(e, ContextEdited)]

    provider.script(EMPTY_REPLY, EMPTY_REPLY)
    events = await run(agent, "again")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.kind == "empty_stream"
    assert "set model.contextWindow to the server's size" in failed.message
    assert agent.session.transcript[-1].role == "user"


async def test_a_llama_cpp_server_overflow_ends_in_an_answer_not_a_cut_stream(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks = ServerQuirks.llama_cpp_python()  # no usage: lull's estimate is uncalibrated
    agent = server_agent(
        local_on(fake.url + "/v1", waits),
        workspace,
        tmp_path,
        context_window=6000,
        max_output_tokens=256,
        guardrails=FILLER_OK,
    )
    turn = 0
    while agent.estimate_context() < 0.71 * 6000:  # near the window, below the trigger (0.8)
        fake.script(Reply(text=" ".join(["answer"] * 200)))
        await run(agent, f"question {turn}: " + "word " * 100)
        turn += 1
    # The server counts ~30% more than lull (its tokenizer): the last request just fitted.
    fake.max_context_tokens = sum(tokens for _, tokens in openai_units(fake.requests[-1])) + 50
    fake.script(Reply(text=summary_of("summary")), Reply(text="fits now"))
    events = await run(agent, "one more")
    said = notices(events)
    assert any("empty stream" in n and "probably the context size" in n for n in said), said
    assert not any("connection dropped" in n for n in said)
    assert isinstance(next(e.edit for e in events if isinstance(e, ContextEdited)), Summary)
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "fits now"
    assert [e.status for e in fake.journal][-3:] == [200, 200, 200]
