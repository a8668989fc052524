"""Our providers driving the official SDKs against the loopback fake server.

One suite, parametrised over Anthropic and the OpenAI dialects (openai,
deepseek, kimi). The fake validates requests as strictly as the real services
(thinking signatures, tool pairing, DeepSeek/Kimi reasoning rules).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lull.model.messages import Message, Text, Thinking, ToolCall, ToolResult, user_text
from lull.model.provider import (
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThinkingConfig,
    ThinkingDelta,
    ToolCallStarted,
    ToolSpec,
)
from lull.providers.config import ProviderConfig, Vendor, create_provider
from tests.fakes import FakeServer, Reply, ToolUse

DIALECTS = ["anthropic", "openai", "deepseek", "kimi"]
KEY = "sk-fake-key"
TOOLS = [
    ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {}}}),
    ToolSpec("glob", "Find files.", {"type": "object", "properties": {"pattern": {}}}),
]
THINKING = ThinkingConfig(enabled=True, budget_tokens=2048)


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        server.api_key = KEY
        yield server


@pytest.fixture(params=DIALECTS)
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_provider(
    fake: FakeServer, dialect: str, *, key: str = KEY, model: str = "", retries: int = 2
) -> Provider:
    """A provider for ``dialect`` pointed at the fake (which is told the dialect too)."""
    if dialect == "anthropic":
        config = ProviderConfig(
            "anthropic", model or "claude-test", key, fake.url, "anthropic", max_retries=retries
        )
    else:
        fake.dialect = dialect
        vendor: Vendor = dialect  # type: ignore[assignment]
        config = ProviderConfig(
            "openai", model or f"{dialect}-test", key, fake.url + "/v1", vendor, max_retries=retries
        )
    return create_provider(config)


async def collect(provider: Provider, request: ModelRequest) -> tuple[list[StreamEvent], Completed]:
    """Every delta of one response, and its Completed."""
    events = [event async for event in provider.stream(request)]
    done = events[-1]
    assert isinstance(done, Completed)
    assert not any(isinstance(e, Completed) for e in events[:-1])
    return events[:-1], done


def request_for(history: list[Message], **extra: Any) -> ModelRequest:
    return ModelRequest(system="You are a test.", messages=list(history), tools=TOOLS, **extra)


def answered(provider: Provider, done: Completed) -> Message:
    """The assistant message the engine would store for ``done``."""
    return Message("assistant", done.parts, origin="model", provider=provider.name)


def results_for(done: Completed, *, error: bool = False) -> Message:
    calls = [p for p in done.parts if isinstance(p, ToolCall)]
    parts = tuple(
        ToolResult(c.id, c.name, f"output of {c.name}", is_error=error and i == 0)
        for i, c in enumerate(calls)
    )
    return Message("user", parts, origin="tool")


async def test_text_streams_in_deltas(fake: FakeServer, dialect: str) -> None:
    fake.script(Reply(text="Hello there, streaming world!", chunk_size=5))
    provider = make_provider(fake, dialect)
    deltas, done = await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    texts = [d.text for d in deltas if isinstance(d, TextDelta)]
    assert len(texts) > 1
    assert "".join(texts) == "Hello there, streaming world!"
    assert done.parts == (Text("Hello there, streaming world!"),)
    assert done.stop_reason == "end_turn"
    assert done.usage.output > 0 and done.usage.prompt_tokens > 0


async def test_thinking_round_trip_over_a_tool_loop(fake: FakeServer, dialect: str) -> None:
    fake.script(
        Reply(
            thinking="I will read a.py.",
            redacted_thinking=dialect == "anthropic",
            tool_calls=[ToolUse("read_file", {"path": "a.py"})],
        ),
        Reply(text="a.py prints hello."),
    )
    provider = make_provider(fake, dialect)
    history = [user_text("what does a.py do?")]
    deltas, first = await collect(provider, request_for(history, thinking=THINKING))
    assert "".join(d.text for d in deltas if isinstance(d, ThinkingDelta)) == "I will read a.py."
    assert first.stop_reason == "tool_use"
    thinking = [p for p in first.parts if isinstance(p, Thinking) and not p.redacted]
    assert [t.text for t in thinking] == ["I will read a.py."]
    history += [answered(provider, first), results_for(first)]
    _, second = await collect(provider, request_for(history, thinking=THINKING))
    await provider.aclose()
    assert second.parts[-1] == Text("a.py prints hello.")
    sent = fake.requests[-1]["messages"]
    if dialect == "anthropic":
        assert thinking[0].signature == fake.sign_thinking("I will read a.py.")
        redacted = [p for p in first.parts if isinstance(p, Thinking) and p.redacted]
        assert sent[1]["content"][:2] == [
            {
                "type": "thinking",
                "thinking": "I will read a.py.",
                "signature": thinking[0].signature,
            },
            {"type": "redacted_thinking", "data": redacted[0].signature},
        ]
    else:
        assistant = next(m for m in sent if m["role"] == "assistant")
        expected = None if dialect == "openai" else "I will read a.py."
        assert assistant.get("reasoning_content") == expected


async def test_parallel_tool_calls_and_error_results(fake: FakeServer, dialect: str) -> None:
    fake.script(
        Reply(
            text="Looking.",
            tool_calls=[
                ToolUse("read_file", {"path": "x.py"}),
                ToolUse("glob", {"pattern": "**/*.md"}),
            ],
        ),
        Reply(text="x.py is missing."),
    )
    provider = make_provider(fake, dialect)
    history = [user_text("look around")]
    deltas, first = await collect(provider, request_for(history))
    calls = [p for p in first.parts if isinstance(p, ToolCall)]
    assert [(c.name, dict(c.arguments)) for c in calls] == [
        ("read_file", {"path": "x.py"}),
        ("glob", {"pattern": "**/*.md"}),
    ]
    started = [d for d in deltas if isinstance(d, ToolCallStarted)]
    assert [(s.call_id, s.name) for s in started] == [(c.id, c.name) for c in calls]
    assert len({c.id for c in calls}) == 2
    history += [answered(provider, first), results_for(first, error=True)]
    _, second = await collect(provider, request_for(history))
    await provider.aclose()
    assert second.parts == (Text("x.py is missing."),)
    sent = fake.requests[-1]["messages"]
    if dialect == "anthropic":
        results = sent[-1]["content"]
        assert results[0]["is_error"] is True and "is_error" not in results[1]
    else:
        tool_messages = [m for m in sent if m["role"] == "tool"]
        assert tool_messages[0]["content"] == "Error: output of read_file"
        assert tool_messages[1]["content"] == "output of glob"


async def test_tool_call_without_reasoning_is_accepted(fake: FakeServer, dialect: str) -> None:
    fake.script(Reply(tool_calls=[ToolUse("glob", {"pattern": "*"})]), Reply(text="done"))
    provider = make_provider(fake, dialect)
    history = [user_text("go")]
    _, first = await collect(provider, request_for(history))
    history += [answered(provider, first), results_for(first)]
    _, second = await collect(provider, request_for(history))
    await provider.aclose()
    assert second.parts == (Text("done"),)


async def test_second_request_reads_the_cache(fake: FakeServer, dialect: str) -> None:
    big_system = "You are a careful assistant. " * 400
    provider = make_provider(fake, dialect)
    history = [user_text("first question")]
    fake.script(Reply(text="first answer"), Reply(text="second answer"))
    _, first = await collect(provider, ModelRequest(system=big_system, messages=history))
    history += [answered(provider, first), user_text("second question")]
    _, second = await collect(provider, ModelRequest(system=big_system, messages=history))
    await provider.aclose()
    assert first.usage.cache_read == 0
    assert second.usage.cache_read > 1000
    assert second.usage.prompt_tokens >= first.usage.prompt_tokens
    if dialect == "anthropic":
        assert first.usage.cache_write > 1000


async def test_rate_limit_then_success(fake: FakeServer, dialect: str) -> None:
    fake.fail_next(status=429, retry_after_ms=10)
    fake.script(Reply(text="after the wait"))
    provider = make_provider(fake, dialect)
    _, done = await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert done.parts == (Text("after the wait"),)
    assert [e.status for e in fake.journal] == [429, 200]


async def test_rate_limit_after_retries(fake: FakeServer, dialect: str) -> None:
    fake.fail_next(status=429, retry_after_ms=10, times=3)
    provider = make_provider(fake, dialect, retries=1)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "rate_limit"
    assert "after 1 retry" in info.value.message and "retries" not in info.value.message


async def test_overloaded(fake: FakeServer, dialect: str) -> None:
    fake.fail_next(status=529, retry_after_ms=10, times=3)
    provider = make_provider(fake, dialect, retries=0)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "overloaded"


async def test_wrong_key_is_auth(fake: FakeServer, dialect: str) -> None:
    provider = make_provider(fake, dialect, key="sk-wrong")
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    env = "ANTHROPIC_API_KEY" if dialect == "anthropic" else "OPENAI_API_KEY"
    assert info.value.kind == "auth"
    assert info.value.message.endswith(f"Check {env}.")


async def test_unknown_model_is_not_found(fake: FakeServer, dialect: str) -> None:
    fake.models = {"some-other-model"}
    provider = make_provider(fake, dialect, model="no-such-model")
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "not_found"
    assert info.value.message.startswith("model 'no-such-model' was not found at http://127.0.0.1")


async def test_connection_refused(dialect: str) -> None:
    with FakeServer() as stopped:
        provider = make_provider(stopped, dialect, retries=0)
        url = stopped.url
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "connection"
    assert info.value.message.startswith(f"could not reach {url}")
    assert "connection refused" in info.value.message


async def test_cut_stream(fake: FakeServer, dialect: str) -> None:
    fake.script(Reply(text="a long answer that will be cut off somewhere", chunk_size=4))
    fake.cut_next_stream(after_events=3)
    provider = make_provider(fake, dialect)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "stream_cut"
    assert "partial answer was discarded" in info.value.message


async def test_error_event_in_the_stream(fake: FakeServer, dialect: str) -> None:
    fake.script(Reply(text="an answer interrupted by an error event", chunk_size=4))
    fake.error_next_stream(after_events=3)
    provider = make_provider(fake, dialect)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind in ("overloaded", "server")
    assert "Overloaded" in info.value.message or "overloaded" in info.value.message


async def test_prompt_too_long(fake: FakeServer, dialect: str) -> None:
    fake.max_context_tokens = 20
    provider = make_provider(fake, dialect)
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("a question " * 50)]))
    await provider.aclose()
    assert info.value.kind == "prompt_too_long"


async def tool_loop(fake: FakeServer, provider: Provider) -> Completed:
    """Two requests: a thinking tool call, then the answer after its result."""
    fake.script(
        Reply(thinking="plan", tool_calls=[ToolUse("glob", {"pattern": "*"})]),
        Reply(text="done"),
    )
    history = [user_text("go")]
    _, first = await collect(provider, request_for(history))
    history += [answered(provider, first), results_for(first)]
    _, second = await collect(provider, request_for(history))
    return second


async def test_deepseek_legacy_never_gets_reasoning_back(fake: FakeServer) -> None:
    provider = make_provider(fake, "deepseek-legacy")
    done = await tool_loop(fake, provider)
    await provider.aclose()
    assert done.parts == (Text("done"),)
    assert all("reasoning_content" not in m for m in fake.requests[-1]["messages"])


async def test_wrong_dialect_shows_the_vendor_400(fake: FakeServer) -> None:
    provider = make_provider(fake, "openai")
    fake.dialect = "deepseek"
    with pytest.raises(ProviderError) as info:
        await tool_loop(fake, provider)
    await provider.aclose()
    assert info.value.kind == "bad_request"
    assert "reasoning_content" in info.value.message


async def test_a_stream_with_only_a_usage_report_says_so(fake: FakeServer) -> None:
    from tests.fakes.quirks import ServerQuirks

    fake.quirks = ServerQuirks(usage_only_stream=True)
    fake.script(Reply(text="never sent"))
    provider = make_provider(fake, "openai")
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "empty_stream"
    assert "held only a usage report" in info.value.message
    assert "dropped" not in info.value.message


async def test_an_html_page_instead_of_a_stream_says_what_came_back(fake: FakeServer) -> None:
    from tests.fakes.quirks import ServerQuirks

    fake.quirks = ServerQuirks(html_page=True)
    provider = make_provider(fake, "openai")
    with pytest.raises(ProviderError) as info:
        await collect(provider, request_for([user_text("hi")]))
    await provider.aclose()
    assert info.value.kind == "server"
    assert "200 OK with text/html instead of an event stream" in info.value.message
    assert fake.url + "/v1" in info.value.message
