"""Fitting requests into the window on the scripted provider: compression, overflow, emergency."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.view import SUMMARY_PREFIX
from lull.engine.fitting.fitter import MIN_OUTPUT_TOKENS, output_limit
from lull.model.edits import ClearThinking, ClearToolResults, Rewind, Summary
from lull.model.events import ContextEdited, Event, Notice, RequestFinished, TurnFinished
from lull.model.messages import Message, is_cleared_text, unanswered_calls
from lull.model.provider import ModelRequest, ProviderError
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply, last_user_text
from tests.support import AgentFactory, run, summary_of

WINDOW = 6_000
SUMMARY = summary_of("Read every file.", "Keep reading.")
FILE_TEXT = "".join(f"row {i}: some content of the file\n" for i in range(60))  # ~2 KB


class Reader:
    """A scripted model that reads ``reads`` files one by one, then answers; and summarises."""

    def __init__(self, files: list[str], reads: int, summary: str = SUMMARY) -> None:
        self.files, self.reads, self.summary, self.step = files, reads, summary, 0
        self.summary_requests: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> ScriptedReply:
        if SUMMARY_MARKER in last_user_text(request):
            self.summary_requests.append(request)
            return ScriptedReply(text=self.summary)
        self.step += 1
        if self.step <= self.reads:
            path = self.files[(self.step - 1) % len(self.files)]
            return ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": path}),))
        self.step = 0
        return ScriptedReply(text="all read")


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = [f"f{i:02d}.txt" for i in range(20)]
    for name in names:
        (workspace / name).write_text(f"{name}\n{FILE_TEXT}")
    return names


def edits_of(events: list[Event], kind: type) -> list[object]:
    return [e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, kind)]


async def test_past_the_threshold_older_messages_become_a_summary(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    reader = Reader(files, reads=12)
    provider.respond = reader
    agent = make_agent(context_window=WINDOW)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished) and events[-1].text == "all read"
    assert edits_of(events, Summary) and reader.summary_requests
    summary_request = reader.summary_requests[0]
    assert summary_request.system == provider.requests[0].system  # same cached prefix
    assert summary_request.tools == provider.requests[0].tools
    after = provider.requests[-1].messages[0]
    assert after.origin == "summary" or after.text.startswith(SUMMARY_PREFIX)
    assert SUMMARY in after.text
    purposes = [e.purpose for e in events if isinstance(e, RequestFinished)]
    assert "summary" in purposes and purposes.count("turn") == 13
    outputs = [r for m in agent.session.transcript for r in m.tool_results]
    assert len(outputs) == 12  # the transcript keeps every original output


async def test_prompt_too_long_compresses_and_retries_once(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    reader = Reader(files, reads=4)
    provider.respond = reader
    agent = make_agent(context_window=100_000)
    await run(agent, "read some files")
    provider.script(
        ScriptedReply(
            error=ProviderError(
                "prompt_too_long", "prompt is too long: 5000 tokens > 3000 maximum", status=400
            )
        )
    )
    events = await run(agent, "and now?")

    assert isinstance(events[-1], TurnFinished)
    assert any("prompt is too long" in e.text for e in events if isinstance(e, Notice))
    assert edits_of(events, Summary)
    assert agent.context_window == 3000  # learned from the error message
    assert not unanswered_calls(agent.session.transcript)


async def test_an_unusable_summary_leaves_the_view_and_the_emergency_net_clears(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    provider.respond = Reader(files, reads=12, summary="")
    agent = make_agent(context_window=WINDOW)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished)
    assert not edits_of(events, Summary)
    failures = [e.text for e in events if isinstance(e, Notice) and "compression failed" in e.text]
    assert failures and "empty summary" in failures[0]
    emergency = edits_of(events, ClearToolResults)
    assert emergency and isinstance(emergency[0], ClearToolResults)
    assert emergency[0].reason == "emergency"
    assert any(
        is_cleared_text(r.content) for m in provider.requests[-1].messages for r in m.tool_results
    )


async def test_compact_by_hand_summarises_with_the_focus(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    reader = Reader(files, reads=3)
    provider.respond = reader
    agent = make_agent()
    await run(agent, "read a few files")
    events = [e async for e in agent.compact("the file names")]

    [summary] = edits_of(events, Summary)
    assert isinstance(summary, Summary) and summary.reason == "manual"
    assert "the file names" in last_user_text(reader.summary_requests[-1])
    assert agent.session.view()[0].text.startswith(SUMMARY_PREFIX)


def test_output_limit_is_what_the_window_has_left_above_a_floor() -> None:
    assert output_limit(8192, 200_000, 10_000) == 8192
    assert output_limit(8192, 2048, 1000) == 1048
    assert output_limit(8192, 2048, 2000) == MIN_OUTPUT_TOKENS
    assert output_limit(100, 2048, 2000) == 100  # never raised above what was asked


async def test_unreported_usage_leaves_the_estimate_uncalibrated(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(ScriptedReply(text="a", usage_reported=False))
    agent = make_agent()
    await run(agent, "hi")
    assert not agent.fitter.calibration.calibrated
    provider.script(ScriptedReply(text="b"))
    await run(agent, "again")
    assert agent.fitter.calibration.calibrated


async def test_a_small_session_never_loads_the_tokenizer(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent(context_window=200_000)
    await run(agent, "hello")
    await run(agent, "and again")
    assert not agent.fitter.counter.exact  # estimated: nothing was near a decision
    assert agent.fitter.counter.tokenizer.name == "chars/4"


async def test_the_tokenizer_loads_once_counting_exactly_could_change_a_decision(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent(context_window=20_000, max_output_tokens=1_000)
    exact_at_request: list[bool] = []
    agent.request_hooks.append(lambda _r, _i: exact_at_request.append(agent.fitter.counter.exact))
    # light line, cold line, compression trigger, hot-cache bypass, emergency line, input
    # limit, output clamp
    points = (10_000, 10_000, 16_000, 17_000, 18_000, 18_095, 18_095)
    assert agent.fitter.decision_points(agent.shape()) == points
    await run(agent, "hello")
    assert exact_at_request == [False]  # ~2k tokens: even 4 times that is under 10k
    other = make_agent(context_window=20_000, max_output_tokens=1_000)
    other.request_hooks.append(lambda _r, _i: exact_at_request.append(other.fitter.counter.exact))
    events = await run(other, "please consider this carefully " * 700)
    # ~7.4k estimated, nothing reported yet: 3.7k to 30k, across 10k: counted exactly
    assert exact_at_request[-1] is True
    assert not any(isinstance(e, ContextEdited) for e in events)


async def test_switching_to_exact_counts_keeps_the_calibrated_estimate(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent(context_window=200_000)
    await run(agent, "hello " * 200)
    fitter = agent.fitter
    shape = agent.shape()
    assert fitter.calibration.calibrated and not fitter.counter.exact
    before = fitter.estimate(shape)
    fitter.count_exactly(shape)
    assert fitter.counter.exact
    assert abs(fitter.estimate(shape) - before) <= 0.02 * before  # no jump in scale


async def test_a_view_extended_by_new_messages_is_the_view_built_anew(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    provider.respond = Reader(files, reads=3)
    agent = make_agent(context_window=200_000)
    fitter, session = agent.fitter, agent.session

    def built_anew() -> list[Message]:
        return fitter.limiter.apply(session.view())

    await run(agent, "read three files")
    calls = [c.id for m in session.transcript for c in m.tool_calls]
    transcript = session.transcript
    session.add_edit(ClearToolResults((calls[0],), reason="manual"))
    session.add_edit(ClearThinking((transcript[1].id,)))
    session.add_edit(Rewind(transcript[3].id, transcript[4].id, hidden=2))
    session.add_edit(Summary(transcript[2].id, "summary of the start"))
    assert fitter.model_view() == built_anew()
    tokens = fitter.local_tokens(agent.shape())
    edits = len(session.edits)
    await run(agent, "and again")  # messages added, no new edit: the view is extended
    assert len(session.edits) == edits
    assert fitter.model_view() == built_anew()
    extended = fitter.local_tokens(agent.shape())
    assert extended > tokens
    fitter._memo = None  # counted anew
    assert fitter.local_tokens(agent.shape()) == extended
    session.add_edit(Summary(session.transcript[-1].id, "everything so far"))
    assert fitter.model_view() == built_anew()  # the summary's head ends the view
    await run(agent, "a third prompt")  # taken into the summary's head
    assert fitter.model_view() == built_anew()
