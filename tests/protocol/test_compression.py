"""Compression end to end: the real agent, provider SDKs and tools against the strict fake."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.idle import IdlePolicy
from lull.context.view import SUMMARY_PREFIX
from lull.engine.loop.agent import Agent
from lull.engine.sessions.load import load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.edits import ClearToolResults, Summary
from lull.model.events import (
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    TurnFailed,
    TurnFinished,
)
from lull.model.messages import unanswered_calls
from lull.providers.config import ProviderConfig, create_provider
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.quirks import ServerQuirks
from tests.fakes.script import last_user_text
from tests.support import CLEARED_PREFIX, AgentFactory, Clock, run, summary_of

WINDOW = 10_000
SUMMARY = summary_of("Read every file.", "Keep reading.")
FILE_TEXT = "".join(f"row {i}: some content of the file\n" for i in range(120))  # ~4 KB


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = [f"f{i:02d}.txt" for i in range(40)]
    for name in names:
        (workspace / name).write_text(f"{name}\n{FILE_TEXT}")
    return names


def is_summary_request(body: dict[str, Any]) -> bool:
    """True for lull's compression request (the instruction is the last user text)."""
    return SUMMARY_MARKER in last_user_text(body)


class Model:
    """A fake model: reads ``reads`` files one by one, then answers; writes summaries."""

    def __init__(self, files: list[str], reads: int, summary: Callable[[], Reply] | None = None):
        self.files, self.reads, self.step = files, reads, 0
        self.summary = summary or (lambda: Reply(text=SUMMARY))
        self.summary_requests: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_summary_request(body):
            self.summary_requests.append(body)
            return self.summary()
        self.step += 1
        if self.step <= self.reads:
            name = self.files[(self.step - 1) % len(self.files)]
            return Reply(tool_calls=[ToolUse("read_file", {"path": name})])
        self.step = 0
        return Reply(text="all read")


def serve(fake: FakeServer, model: Model) -> Model:
    fake.default_reply = Reply(respond=model)
    return model


def edits_of(events: list[Event], kind: type) -> list[Any]:
    return [e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, kind)]


def notices(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def assert_session_valid(agent: Agent) -> None:
    """The file reloads, every call is answered, and the view starts with a user message."""
    assert agent.session.path is not None
    record = load_session(agent.session.path)
    assert record.skipped_lines == 0
    assert not unanswered_calls(record.messages)
    view = agent.session.view()
    assert view[0].role == "user"


@pytest.mark.parametrize("vendor", ["anthropic", "deepseek"])
async def test_a_long_tool_loop_stays_under_the_window_and_finishes(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    serve(fake, Model(files, reads=16))
    fake.max_context_tokens = WINDOW
    agent = make_agent(vendor, context_window=WINDOW)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished) and events[-1].text == "all read"
    summaries = edits_of(events, Summary)
    assert summaries, notices(events)
    assert all(entry.status == 200 for entry in fake.journal)  # every request fitted
    turn_requests = [e for e in events if isinstance(e, RequestFinished) and e.purpose == "turn"]
    assert len(turn_requests) == 17
    assert all(e.context_window == WINDOW for e in turn_requests)
    # the session file still holds every original tool output
    assert agent.session.path is not None
    record = load_session(agent.session.path)
    outputs = [r.content for m in record.messages for r in m.tool_results]
    assert len(outputs) == 16 and all(FILE_TEXT.splitlines()[5] in o for o in outputs)
    assert any(isinstance(e, Summary) for e in record.edits)
    assert_session_valid(agent)


async def test_the_summary_reaches_later_requests_and_reuses_the_prefix(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    model = serve(fake, Model(files, reads=10))
    agent = make_agent("anthropic", context_window=WINDOW)
    await run(agent, "read every file")
    events = await run(agent, "what did you find?")

    assert model.summary_requests
    summary_request = model.summary_requests[0]
    main = [b for b in fake.requests if not is_summary_request(b)]
    assert summary_request["system"] == main[0]["system"]  # same cached prefix
    assert summary_request["tools"] == main[0]["tools"]
    assert "Do NOT call any tools" in last_user_text(summary_request)
    first = main[-1]["messages"][0]["content"]
    text = first if isinstance(first, str) else first[0]["text"]
    assert text.startswith(SUMMARY_PREFIX) and SUMMARY in text
    assert isinstance(events[-1], TurnFinished)
    # resuming reproduces the same compressed view
    assert agent.session.path is not None
    resumed = Session(load_session(agent.session.path), None)
    assert [m.id for m in resumed.view()] == [m.id for m in agent.session.view()]


@pytest.mark.parametrize("failure", ["empty", "inflated", "error"])
async def test_a_failed_summary_leaves_the_view_and_pauses_after_three(
    failure: str, fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    def bad_summary() -> Reply:
        if failure == "error":
            raise RuntimeError("summariser crashed")
        text = {"empty": "", "inflated": summary_of("padding " * 10_000)}[failure]
        return Reply(text=text, chunk_size=100_000)

    serve(fake, Model(files, reads=16, summary=bad_summary))
    agent = make_agent("anthropic", context_window=WINDOW)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished)
    assert not edits_of(events, Summary)
    failed = [n for n in notices(events) if n.startswith("compression failed")]
    assert len(failed) == 3
    expected = {
        "empty": "empty summary",
        "inflated": "not smaller",
        "error": "request failed",
    }
    assert all(expected[failure] in n for n in failed)
    retried = [n for n in notices(events) if n.endswith("asking once more with a reminder")]
    assert len(retried) == (0 if failure == "error" else 3)  # each rejection is asked again
    assert any("auto-compression paused" in n for n in notices(events))
    emergency = edits_of(events, ClearToolResults)
    assert emergency and all(e.reason == "emergency" for e in emergency)
    assert_session_valid(agent)

    # /compact resumes compression (and works once the model behaves)
    serve(fake, Model(files, reads=1))
    manual = [e async for e in agent.compact()]
    assert edits_of(manual, Summary) and edits_of(manual, Summary)[0].reason == "manual"


async def test_a_summary_without_the_sections_is_kept_unstructured_after_the_reminder(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    prose = (
        "The user wants every file in the workspace read from start to end. The files a to p "
        "were read one after the other with read_file, nothing failed, and no file was "
        "changed; the next step is to report what they hold."
    )
    serve(fake, Model(files, reads=16, summary=lambda: Reply(text=prose)))
    agent = make_agent("anthropic", context_window=WINDOW)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished)
    reminded = [n for n in notices(events) if n.endswith("asking once more with a reminder")]
    assert reminded and "lacks the section(s) User goal" in reminded[0]
    summaries = edits_of(events, Summary)
    assert summaries and summaries[0].text.startswith("(An unstructured summary")
    assert prose in summaries[0].text
    assert summaries[0].tokens_after < summaries[0].tokens_before
    assert not [n for n in notices(events) if n.startswith("compression failed")]
    assert_session_valid(agent)


async def test_prompt_too_long_from_the_provider_compresses_and_retries_once(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    serve(fake, Model(files, reads=12))
    fake.max_context_tokens = 6000  # smaller than lull thinks (model.contextWindow 100000)
    agent = make_agent("anthropic", context_window=100_000)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished)
    assert [e.status for e in fake.journal].count(400) == 1
    assert any("prompt is too long" in n for n in notices(events))
    assert edits_of(events, Summary)
    assert agent.context_window == 6000  # learned from the error message
    assert_session_valid(agent)


async def test_llama_servers_own_overflow_error_compresses_and_learns_n_ctx(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    serve(fake, Model(files, reads=12))
    fake.quirks = ServerQuirks.llama_server()
    fake.max_context_tokens = 6000
    agent = make_agent("vllm", context_window=100_000)  # an OpenAI-compatible local server
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished)
    refused = [e for e in fake.journal if e.status == 400]
    assert len(refused) == 1 and "exceeds the available context size" in str(refused[0].error)
    assert any("prompt is too long" in n for n in notices(events))
    assert edits_of(events, Summary)
    assert agent.context_window == 6000  # learned from n_ctx in the message
    assert_session_valid(agent)


async def test_prompt_too_long_with_a_failing_summary_clears_oldest_outputs(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    serve(fake, Model(files, reads=12, summary=lambda: Reply(text="")))
    fake.max_context_tokens = 6000
    agent = make_agent("openai", context_window=100_000)
    events = await run(agent, "read every file")

    assert isinstance(events[-1], TurnFinished)
    emergency = edits_of(events, ClearToolResults)
    assert emergency and emergency[0].reason == "emergency"
    sent = json.dumps(fake.requests[-1])
    assert CLEARED_PREFIX in sent
    assert_session_valid(agent)


async def test_a_prompt_that_never_fits_fails_the_turn_with_a_clear_message(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    fake.max_context_tokens = 50  # not even the system prompt and tools fit
    agent = make_agent("anthropic", context_window=100_000)
    events = await run(agent, "hello")
    assert isinstance(events[-1], TurnFailed)
    assert events[-1].kind == "prompt_too_long"
    assert "/compact" in events[-1].message
    assert_session_valid(agent)


async def test_compact_by_hand_with_a_focus(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    model = serve(fake, Model(files, reads=3))
    agent = make_agent("anthropic")
    for turn in range(3):
        await run(agent, f"turn {turn}: read some files")
    events = [e async for e in agent.compact("the parser bug")]

    summary = edits_of(events, Summary)[0]
    assert summary.reason == "manual" and summary.tokens_after < summary.tokens_before
    assert "focus the summary on: the parser bug" in last_user_text(model.summary_requests[-1])
    assert any(e.purpose == "summary" for e in events if isinstance(e, RequestFinished))
    await run(agent, "go on")
    assert SUMMARY in fake.requests[-1]["messages"][0]["content"][0]["text"]


async def test_compact_with_nothing_to_compress_says_so(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    agent = make_agent("anthropic")
    events = [e async for e in agent.compact(None)]
    assert notices(events) == ["nothing to compress: the conversation is too short to split"]
    assert fake.journal == []


def with_summariser(fake: FakeServer, agent: Agent, name: str) -> Agent:
    """``agent`` with a summary provider for model ``name`` (context.compression.model)."""
    summariser = create_provider(ProviderConfig("anthropic", name, "test", fake.url, "anthropic"))
    return Agent(
        agent.session, agent.provider, agent.tools, agent.config, agent.clock,
        summary_provider=summariser,
    )  # fmt: skip


async def test_the_compression_model_writes_summaries(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    model = serve(fake, Model(files, reads=10))
    agent = with_summariser(fake, make_agent("anthropic", context_window=WINDOW), "claude-haiku-x")
    await run(agent, "read every file")
    assert model.summary_requests
    assert {b["model"] for b in model.summary_requests} == {"claude-haiku-x"}
    assert {b["model"] for b in fake.requests if not is_summary_request(b)} == {"claude-test"}


async def test_a_compression_model_with_too_small_a_window_is_not_used(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    model = serve(fake, Model(files, reads=20))
    agent = with_summariser(fake, make_agent("anthropic", context_window=30_000), "llama3:8b")
    await run(agent, "read every file")  # the part to summarise is far over llama3's 8k
    assert model.summary_requests
    assert {b["model"] for b in model.summary_requests} == {"claude-test"}


async def test_an_oversized_tool_result_is_truncated_for_the_model(
    fake: FakeServer, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    big = "".join(f"{i:05d} a line of a very long log file\n" for i in range(400))
    (workspace / "big.log").write_text(big)
    fake.script(Reply(tool_calls=[ToolUse("read_file", {"path": "big.log"})]), Reply(text="ok"))
    agent = make_agent("anthropic", tool_output_max_tokens=400)
    await run(agent, "read the log")

    sent = fake.requests[-1]["messages"][-1]["content"][0]["content"]
    assert "tokens of this tool result omitted for the model" in sent
    saved = tmp_path / "out" / f"{agent.session.transcript[1].tool_calls[0].id}.full.txt"
    assert str(saved) in sent
    full = agent.session.transcript[2].tool_results[0].content
    assert saved.read_text() == full and "00390 a line" in full
    assert len(sent) < len(full) // 3


async def test_idle_cleanup_still_runs_after_a_compression(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    serve(fake, Model(files, reads=14))
    clock = Clock()
    idle = IdlePolicy(tool_results_num_to_keep=1)
    agent = make_agent("anthropic", context_window=16_000, clock=clock, idle=idle)
    first = await run(agent, "read every file")
    assert edits_of(first, Summary)
    clock.advance_minutes(90)
    back = await run(agent, "back from lunch")
    assert [e.reason for e in edits_of(back, ClearToolResults)] == ["idle"]


async def test_a_resumed_session_estimates_tokens_as_calibrated_before_it_closed(
    fake: FakeServer,
    make_agent: AgentFactory,
    files: list[str],
    workspace: Path,
    tmp_path: Path,
) -> None:
    serve(fake, Model(files, reads=3))
    agent = make_agent()
    await run(agent, "read three files")
    before = agent.estimate_context()
    assert agent.fitter.calibration.calibrated
    assert agent.fitter.calibration.ratio != 1.0  # the fake counts tokens its own way
    path = agent.session.path
    assert path is not None
    agent.session.close()

    store = SessionStore(tmp_path / "sessions", workspace)  # where build_agent saves
    resumed = make_agent(session=Session.resume(store, path))
    assert resumed.fitter.calibration.calibrated
    assert resumed.estimate_context() == before
