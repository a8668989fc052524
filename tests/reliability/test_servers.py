"""Issue 11, real servers: waits are never silent, nothing hangs, and what local servers
really do (reference/real-servers.md) does not lose a session.

Each test reproduces one reported failure. Provider behaviour goes through the official SDKs
against the loopback fake (taught each server quirk); engine behaviour also runs on the
scripted provider. No test sleeps for real: retry waits go to a recording ``sleep``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.loop.agent import Agent
from lull.engine.sessions.load import load_session
from lull.model.edits import Summary
from lull.model.events import (
    AssistantText,
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    TurnFailed,
    TurnFinished,
)
from lull.model.messages import Text, user_text
from lull.model.provider import (
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    Retrying,
    StreamEvent,
    ThinkingConfig,
)
from lull.providers.anthropic import AnthropicProvider
from lull.providers.config import ProviderConfig
from lull.providers.errors import ErrorContext, error_context, from_status, map_error
from lull.providers.openai import OpenAIProvider
from lull.providers.retry import RetryTiming, clock_time, plan_retry
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests import support
from tests.fakes import FakeServer, Reply, ServerQuirks, ToolUse
from tests.fakes.cache import openai_units
from tests.support import run, summary_of

NOW = 1_700_000_000.0


class Waits:
    """Retry timing that records each wait instead of sleeping (a fixed wall clock)."""

    def __init__(self) -> None:
        self.slept: list[float] = []
        self.timing = RetryTiming(sleep=self.sleep, now=lambda: NOW, jitter=lambda: 0.0)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


@pytest.fixture
def waits() -> Waits:
    return Waits()


def anthropic_on(fake: FakeServer, waits: Waits, **config: Any) -> AnthropicProvider:
    """The Anthropic provider pointed at the fake."""
    settings = ProviderConfig("anthropic", "claude-test", "k", fake.url, "anthropic", **config)
    return AnthropicProvider(settings, timing=waits.timing)


def local_on(url: str, waits: Waits, **config: Any) -> OpenAIProvider:
    """The OpenAI provider for a local OpenAI-compatible server at ``url`` (no vendor)."""
    settings = ProviderConfig("openai", "local-model", "k", url, "generic", **config)
    return OpenAIProvider(settings, timing=waits.timing)


def agent_on(provider: Provider, workspace: Path, data: Path, **config: Any) -> Agent:
    """A real agent (real tools, a saved session) on ``provider``, on the real clock."""
    config.setdefault("vendor", "anthropic" if provider.name == "anthropic" else "generic")
    return support.agent_on(provider, workspace, data, clock=time.time, **config)


async def answer(provider: Provider, text: str = "hi") -> list[StreamEvent]:
    """Every event of one request with a single user message."""
    request = ModelRequest(system="You are a test.", messages=[user_text(text)])
    return [event async for event in provider.stream(request)]


def notices(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


# --- 12: a long retry-after is not slept through in silence ---------------------------------


async def test_retry_after_an_hour_stops_the_turn_and_says_when(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.fail_next(status=429, retry_after_ms=None, headers={"retry-after": "3600"})
    agent = agent_on(anthropic_on(fake, waits), workspace, tmp_path)
    events = await run(agent, "hi")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.kind == "rate_limit"
    when = clock_time(NOW + 3600, NOW)
    assert f"rate limited; retry after {when} (60 min)" in failed.message
    assert waits.slept == []  # nothing was slept through
    assert [e.status for e in fake.journal] == [429]  # and nothing sent again
    assert agent.session.transcript[-1].role == "user"  # the session is intact


async def test_every_wait_longer_than_two_seconds_is_shown_as_it_happens(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.fail_next(status=429, retry_after_ms=3000)
    fake.script(Reply(text="made it"))
    agent = agent_on(anthropic_on(fake, waits), workspace, tmp_path)
    events = await run(agent, "hi")
    [notice] = [e for e in events if isinstance(e, Notice)]
    assert notice.text == (
        "Anthropic rate limit reached (429 rate_limit_error): Rate limit exceeded; "
        "retrying in 3 s (retry 1 of 2)"
    )
    shown = events.index(notice)
    assert shown < next(i for i, e in enumerate(events) if isinstance(e, AssistantText))
    assert waits.slept == [3.0]
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "made it"

    fake.fail_next(status=529, retry_after_ms=10)  # a short wait is logged, not shown
    fake.script(Reply(text="again"))
    events = await run(agent, "more")
    assert notices(events) == [] and waits.slept == [3.0, 0.01]
    assert isinstance(events[-1], TurnFinished)


def test_the_provider_announces_each_wait_and_the_sdk_never_retries_on_its_own(
    fake: FakeServer, waits: Waits
) -> None:
    import asyncio

    fake.fail_next(status=529, retry_after_ms=None, times=2)
    fake.script(Reply(text="third time"))
    events = asyncio.run(answer(anthropic_on(fake, waits)))
    retries = [e for e in events if isinstance(e, Retrying)]
    assert [(r.attempt, r.max_retries) for r in retries] == [(1, 2), (2, 2)]
    assert waits.slept == [0.5, 1.0]  # the SDKs' backoff (no jitter here)
    assert [e.headers["x-stainless-retry-count"] for e in fake.journal] == ["0", "0", "0"]
    assert isinstance(events[-1], Completed)


async def test_a_wait_during_a_summary_request_is_shown_too(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider(long_history(4, 300))
    agent = agent_on(provider, workspace, tmp_path, guardrails=FILLER_OK)
    for turn in range(4):
        await run(agent, f"question {turn}")
    wait = Retrying("Anthropic is overloaded (529 overloaded_error)", 8.0, 1, 2)
    provider.script(ScriptedReply(text=summary_of("summary"), retrying=(wait,)))
    events = [event async for event in agent.compact()]
    assert notices(events)[1] == (
        "Anthropic is overloaded (529 overloaded_error); retrying in 8 s (retry 1 of 2)"
    )
    assert any(isinstance(e, ContextEdited) for e in events)


# --- 13: a server that never answers ---------------------------------------------------------


@pytest.fixture
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A loopback server that accepts connections and never sends a byte.

    Its thread ends before the listener is closed: a thread still blocked in ``accept()``
    on a closed descriptor can take, after a signal restarts the call, the connections of
    whatever listener the next test opens under the same descriptor number."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            if stopping.is_set():
                connection.close()
                return
            accepted.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", accepted
    stopping.set()
    socket.create_connection(listener.getsockname()).close()  # wakes the blocked accept()
    thread.join(timeout=30)
    listener.close()
    for connection in accepted:
        connection.close()


async def test_a_server_that_never_answers_fails_after_model_timeout_seconds(
    silent_server: tuple[str, list[socket.socket]], waits: Waits
) -> None:
    url, accepted = silent_server
    provider = local_on(url, waits, timeout_seconds=0.2)
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "timeout"
    assert info.value.message == (
        f"the server at {url} sent nothing for 0.2 s at {url} (model.timeoutSeconds). Check "
        "the server; a slow local model may need a larger model.timeoutSeconds in settings.json."
    )
    assert len(accepted) == 1 and waits.slept == []  # not retried: no 30 minutes of silence


async def test_a_stream_that_stalls_between_chunks_times_out_too(
    fake: FakeServer, waits: Waits
) -> None:
    fake.script(Reply(text="slow words arrive", chunk_size=4, chunk_delay=2.0))
    provider = local_on(fake.url + "/v1", waits, timeout_seconds=0.25)
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "timeout"
    assert "stopped sending for 0.25 s in the middle of the answer" in info.value.message
    assert "model.timeoutSeconds" in info.value.message


def test_model_timeout_seconds_is_a_setting_with_a_default(
    workspace: Path, isolated_env: Path
) -> None:
    from lull.providers.sdk import sdk_client
    from lull.runtime import RunOptions, build_runtime

    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "k"}
    default = build_runtime(RunOptions(workspace, model="m"), env)
    assert default.provider_config.timeout_seconds == 300.0
    default.close()
    config_dir = isolated_env / "config" / "lull"
    config_dir.mkdir(parents=True)
    (config_dir / "settings.json").write_text('{"model": {"timeoutSeconds": 900}}')
    slow = build_runtime(RunOptions(workspace, model="m"), env)
    client = sdk_client(slow.provider_config, "openai", "AsyncOpenAI", "")
    assert (client.timeout.read, client.timeout.connect, client.max_retries) == (900, 10, 0)
    slow.close()
    (config_dir / "settings.json").write_text('{"model": {"timeoutSeconds": 0}}')
    bad = build_runtime(RunOptions(workspace, model="m"), env)
    [problem] = [d.message for d in bad.loaded.diagnostics]
    assert "model.timeoutSeconds" in problem and "> 0" in problem
    assert bad.provider_config.timeout_seconds == 300.0
    bad.close()


# --- 15: refused loopback fails fast; an identical 500 is not "try again later" -------------


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


async def test_a_refused_connection_on_loopback_fails_at_once(waits: Waits) -> None:
    url = closed_port_url()
    provider = local_on(url, waits)  # the default 2 retries
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "connection"
    assert info.value.message == (
        f"could not reach {url}: connection refused. Is the server running / OPENAI_BASE_URL right?"
    )
    assert waits.slept == []


def test_a_refused_connection_elsewhere_is_still_retried() -> None:
    import httpx2
    import openai

    exc = openai.APIConnectionError(request=httpx2.Request("POST", "http://192.0.2.7:8000/v1"))
    exc.__cause__ = ConnectionRefusedError(111, "Connection refused")
    remote = ErrorContext("the server", "http://192.0.2.7:8000/v1", "m", "K", "OPENAI_BASE_URL")
    step = plan_retry(exc, 0, None, remote, RetryTiming(jitter=lambda: 0.0))
    assert isinstance(step, Retrying) and step.wait_seconds == 0.5
    local = ErrorContext("the server", "http://localhost:8000/v1", "m", "K", "OPENAI_BASE_URL")
    assert isinstance(plan_retry(exc, 0, None, local, RetryTiming()), ProviderError)


async def test_a_500_that_repeats_identically_says_what_the_server_said(
    fake: FakeServer, waits: Waits
) -> None:
    fake.fail_next(status=500, times=3, message="llama_decode failed: KV cache is full")
    provider = local_on(fake.url + "/v1", waits)
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    message = info.value.message
    assert info.value.kind == "server" and info.value.status == 500
    assert message.startswith(
        f"the server at {fake.url}/v1 failed the same way 2 times (500 server_error): "
        "llama_decode failed: KV cache is full. "
    )
    assert "try again later" not in message.lower()
    assert len(fake.journal) == 2  # the third, identical attempt was not made


async def test_500s_that_differ_are_retried_as_before(fake: FakeServer, waits: Waits) -> None:
    fake.fail_next(status=500, message="worker restarting")
    fake.fail_next(status=503, message="loading model")
    fake.script(Reply(text="up again"))
    events = await answer(local_on(fake.url + "/v1", waits))
    assert isinstance(events[-1], Completed) and events[-1].parts == (Text("up again"),)
    assert [e.status for e in fake.journal] == [500, 503, 200]


# --- 18: "the the server" ---------------------------------------------------------------------


@pytest.mark.parametrize("vendor", ["generic", "vllm"])
def test_no_service_name_gets_a_second_the(vendor: str) -> None:
    config = ProviderConfig("openai", "m", "k", "http://box:8000/v1", vendor)  # type: ignore[arg-type]
    ctx = error_context(config)
    texts = [map_error(ValueError("odd"), ctx, streaming=False).message]
    for status in (400, 401, 402, 403, 404, 408, 413, 429, 500, 529):
        texts.append(from_status(status, "", "", "detail", ctx).message)
    assert texts[0] == f"the client for {ctx.service} failed: ValueError: odd"
    assert not [t for t in texts if "the the" in t.lower()]


# --- 19: "content": null after a tool call -----------------------------------------------------


async def test_a_tool_call_without_text_is_sent_with_empty_content(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks.reject_null_content = True  # llama-cpp-python answers null with a 500
    fake.script(Reply(tool_calls=[ToolUse("glob", {"pattern": "*"})]), Reply(text="nothing here"))
    agent = agent_on(local_on(fake.url + "/v1", waits), workspace, tmp_path)
    events = await run(agent, "which files?")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "nothing here"
    fake.script(Reply(text="still fine"))
    events = await run(agent, "and now?")  # every later request of the session works too
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "still fine"
    assert {e.status for e in fake.journal} == {200}
    [call] = [m for m in fake.requests[-1]["messages"] if m.get("tool_calls")]
    assert call["content"] == ""


# --- 20: 200 with an empty stream --------------------------------------------------------------


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


def long_history(turns: int, words: int) -> list[ScriptedReply]:
    """Scripted answers of ``words`` words each, to grow a conversation (the same word over
    and over: agents fed these run without the stream-repetition guard, :data:`FILLER_OK`)."""
    return [ScriptedReply(text=" ".join(["answer"] * words)) for _ in range(turns)]


FILLER_OK = GuardrailPolicy(stream_repetition=False)
"""Guardrails that let a repeating filler answer through (it grows a conversation here)."""


EMPTY = ProviderError("empty_stream", "the server answered 200 OK with an empty stream")
EMPTY_REPLY = ScriptedReply(error=EMPTY)


async def test_an_empty_stream_near_the_window_compresses_and_retries(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider(long_history(6, 300))
    agent = agent_on(
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
    agent = agent_on(provider, workspace, tmp_path)
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
    agent = agent_on(
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


# --- 21: no usage in streamed answers -----------------------------------------------------------


async def test_unreported_usage_is_not_zero_and_does_not_calibrate(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks.stream_usage = False
    agent = agent_on(local_on(fake.url + "/v1", waits), workspace, tmp_path)
    fake.script(Reply(text="no usage from me"))
    events = await run(agent, "hi")
    [finished] = [e for e in events if isinstance(e, RequestFinished)]
    assert finished.usage.reported is False and finished.usage.unknown
    assert finished.context_tokens > 0  # the local estimate stands in
    assert not agent.fitter.calibration.calibrated
    assert agent.session.path is not None
    record = load_session(agent.session.path)
    assert record.usage.reported is False and record.calibration is None


def test_displays_say_not_reported(
    fake: FakeServer, workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from lull.runtime import RunOptions
    from lull.ui.printer import run_print

    fake.quirks.stream_usage = False
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    fake.script(Reply(text="hello"))
    assert run_print(RunOptions(workspace, model="local-model"), "hi", "json") == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["usage_reported"] is False and payload["cost_usd"] is None
    fake.script(Reply(text="hello again"))
    assert run_print(RunOptions(workspace, model="local-model"), "hi", "stream-json") == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [usage] = [line for line in lines if line["type"] == "usage"]
    assert usage["usage_reported"] is False and usage["cost_usd"] is None


async def test_cost_status_and_line_summary_say_not_reported(
    workspace: Path, tmp_path: Path, isolated_env: Path
) -> None:
    from lull.commands.usage import cost_report
    from lull.runtime import RunOptions, build_runtime
    from lull.ui.line.status import status_line, turn_summary
    from lull.ui.shared.facts import facts_for
    from lull.ui.shared.status import status_line as bar

    def factory(config: ProviderConfig) -> Provider:
        return ScriptedProvider([ScriptedReply(text="hi", usage_reported=False)])

    runtime = build_runtime(RunOptions(workspace, demo=True), {}, provider_factory=factory)
    from rich.console import Console

    from lull.ui.line.render import EventPrinter

    printer = EventPrinter(Console(file=open(tmp_path / "out.txt", "w")))  # noqa: SIM115
    async for event in runtime.agent.run_turn("hello"):
        printer.render(event)
    report = "\n".join(cost_report(runtime, "").lines)
    assert "tokens: not reported by the server" in report
    assert "cost: unknown (not reported by the server)" in report
    assert "last request: usage not reported by the server" in report
    assert "usage not reported" in status_line(runtime)
    assert "usage not reported" in bar(facts_for(runtime, "ready"), NOW, 200)
    summary = turn_summary(runtime, printer)
    assert summary.startswith("1 request: usage not reported by the server (context ~")
    assert "0 prompt tokens" not in summary
    runtime.close()


# --- 22: max_tokens clamped to what fits --------------------------------------------------------


async def test_a_2048_token_window_never_gets_max_tokens_8192(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    agent = agent_on(provider, workspace, tmp_path, context_window=2048)
    assert agent.config.max_output_tokens == 8192
    events: list[Event] = []
    for turn in range(3):
        events += await run(agent, f"question {turn}")
    sent = [r.max_output_tokens for r in provider.requests]
    assert all(256 <= limit < 2048 for limit in sent), sent
    prompts = [e.usage.prompt_tokens for e in events if isinstance(e, RequestFinished)]
    assert all(p + limit <= 2048 for p, limit in zip(prompts, sent, strict=True))


async def test_a_vllm_server_accepts_the_clamped_limit(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks = ServerQuirks.vllm()  # 400 when prompt + max_tokens does not fit
    fake.max_context_tokens = 4096
    agent = agent_on(local_on(fake.url + "/v1", waits), workspace, tmp_path, context_window=4096)
    for turn in range(3):  # the first request is sized before any usage was reported
        fake.script(Reply(text=f"fits {turn}"))
        events = await run(agent, f"question {turn}")
        assert isinstance(events[-1], TurnFinished) and events[-1].text == f"fits {turn}"
    assert all(256 <= body["max_tokens"] < 4096 for body in fake.requests)


async def test_an_explicit_thinking_budget_shrinks_with_the_output_limit(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    thinking = ThinkingConfig(True, 6000)
    agent = agent_on(provider, workspace, tmp_path, context_window=4096, thinking=thinking)
    await run(agent, "think")
    request = provider.requests[-1]
    assert request.max_output_tokens < 4096
    assert request.thinking.budget_tokens is not None
    assert request.thinking.budget_tokens < request.max_output_tokens
