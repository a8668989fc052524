"""Exact counts: loaded only when they could matter, saved in the session file, reused on a
resume (the scripted provider, a real saved session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.context.tokens import TokenCounter, UsageCalibration
from lull.engine.fitting.exact_counts import tokenizer_needed
from lull.engine.sessions.load import load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import TurnFinished
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

WINDOW = 20_000


@pytest.fixture
def long_file(workspace: Path) -> str:
    """A file of ~14k characters (over a 3k-token result limit in bytes)."""
    (workspace / "big.txt").write_text("".join(f"line {i}: a sentence\n" for i in range(700)))
    return "big.txt"


def test_the_tokenizer_is_needed_when_a_decision_lies_within_what_the_estimate_can_be() -> None:
    calibration = UsageCalibration()
    # uncalibrated, 2k estimated: the prompt is between 3k - 1k and 3k + 3 * 2k
    assert not tokenizer_needed(3_000, 2_000, calibration, [10_000])
    assert tokenizer_needed(3_000, 2_500, calibration, [10_000])
    assert not tokenizer_needed(30_000, 2_000, calibration, [10_000])  # surely past it
    calibration.observe(reported=100_000, local=100_000)
    # calibrated: only what came since the last report is uncertain
    assert not tokenizer_needed(105_000, 90_000, calibration, [120_000])
    assert tokenizer_needed(105_000, 90_000, calibration, [108_000])


async def test_exact_counts_are_saved_and_a_resume_reuses_them(
    provider: ScriptedProvider,
    make_agent: AgentFactory,
    store: SessionStore,
    long_file: str,
) -> None:
    provider.script(
        ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": long_file}),)),
        ScriptedReply(text="read it"),
    )
    agent = make_agent(context_window=WINDOW, max_output_tokens=1_000, tool_output_max_tokens=3_000)
    fitter = agent.fitter
    fitter.count_exactly(agent.shape())  # as if the session had grown near a threshold
    events = await run(agent, "read the big file")
    assert isinstance(events[-1], TurnFinished)
    cut = fitter.limiter.cuts["call_1"]
    assert cut.total > 3_000 and cut.omitted > 0  # counted exactly, and truncated
    path = agent.session.path
    assert path is not None
    agent.session.close()

    record = load_session(path)
    assert record.token_counts is not None
    saved = record.token_counts
    assert saved.tokenizer == fitter.counter.tokenizer.name
    assert set(saved.messages) <= {m.id for m in record.messages}
    # the prompt and the call; the result is sent truncated (its cut is saved instead), the
    # last answer was never part of a request
    assert len(saved.messages) == 2
    assert saved.results == {"call_1": cut.as_list()}
    sent = provider.requests[-1].messages

    resumed = make_agent(
        session=Session.resume(store, path),
        context_window=WINDOW,
        max_output_tokens=1_000,
        tool_output_max_tokens=3_000,
    )
    counter = resumed.fitter.counter
    transcript = resumed.session.transcript
    assert not counter.exact  # deferred: nothing loaded to resume
    exact = TokenCounter(provider.model)
    counted = [m for m in transcript if m.id in saved.messages]
    assert sum(counter.message(m) for m in counted) == sum(exact.message(m) for m in counted)
    assert resumed.fitter.limiter.cuts == {"call_1": cut}
    # the same truncated result as before the resume, made without any tokenizer
    assert resumed.fitter.model_view()[2] == sent[2]
    assert resumed.fitter.limiter.counter._tokenizer is None
    provider.script(ScriptedReply(text="again"))
    events = await run(resumed, "and now?")
    assert isinstance(events[-1], TurnFinished)
    assert provider.requests[-1].messages[:3] == sent[:3]


async def test_a_one_shot_prompt_loads_no_tokenizer_at_all(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent()
    provider.script(ScriptedReply(text="hi"))
    await run(agent, "hello")
    assert agent.fitter.counter._tokenizer is None
    assert agent.fitter.limiter.counter._tokenizer is None
