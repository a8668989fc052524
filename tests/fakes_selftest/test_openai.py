"""The official openai SDK against the fake: streams, tools, validation, dialects, caching."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes_selftest.conftest import GPT, error_text, user

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]


def call_turn(call_id: str = "call_a", reasoning: str | None = None) -> dict[str, Any]:
    """An assistant message with one tool call (optionally carrying reasoning_content)."""
    function = {"name": "read_file", "arguments": '{"path": "a"}'}
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return message


def tool_msg(call_id: str = "call_a") -> dict[str, Any]:
    """A tool result message."""
    return {"role": "tool", "tool_call_id": call_id, "content": "x = 1"}


def chat(client: Any, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
    """chat.completions.create with defaults."""
    return client.chat.completions.create(model=GPT, messages=messages, **kwargs)


def test_stream_text_reasoning_and_usage_chunk(fake: FakeServer, openai_client: Any) -> None:
    fake.script(Reply(text="Hello world!", thinking="let me think", chunk_size=4))
    stream = chat(openai_client, [user("hi")], stream=True, stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasoning = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices
    )
    assert text == "Hello world!" and reasoning == "let me think"
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens > 0
    assert chunks[-2].choices[0].finish_reason == "stop"


def test_parallel_tool_calls_reassembled(fake: FakeServer, openai_client: Any) -> None:
    calls = [ToolUse("read_file", {"path": "a/long/path/name.py"}), ToolUse("glob", {"p": "*"})]
    fake.script(Reply(tool_calls=calls))
    assembled: dict[int, dict[str, str]] = {}
    fragments = 0
    for chunk in chat(openai_client, [user("go")], stream=True):
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            slot = assembled.setdefault(delta.index, {"id": "", "name": "", "args": ""})
            slot["id"] += delta.id or ""
            slot["name"] += (delta.function.name or "") if delta.function else ""
            slot["args"] += (delta.function.arguments or "") if delta.function else ""
            fragments += 1
    assert [json.loads(s["args"]) for s in assembled.values()] == [c.arguments for c in calls]
    assert [s["name"] for s in assembled.values()] == ["read_file", "glob"]
    assert all(s["id"].startswith("call_") for s in assembled.values())
    assert fragments >= 4


async def test_async_non_streaming(fake: FakeServer) -> None:
    client = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="test", max_retries=0)
    fake.script(Reply(text="hey", tool_calls=[ToolUse("read_file", {"path": "x"})]))
    response = await client.chat.completions.create(model=GPT, messages=[user("a")])
    choice = response.choices[0]
    assert choice.message.content == "hey" and choice.finish_reason == "tool_calls"
    assert json.loads(choice.message.tool_calls[0].function.arguments) == {"path": "x"}
    await client.close()


def test_valid_tool_loop_accepted(openai_client: Any) -> None:
    chat(openai_client, [user("a"), call_turn(), tool_msg(), user("b")], tools=TOOLS)


def test_tool_message_without_call_rejected(openai_client: Any) -> None:
    with pytest.raises(openai.BadRequestError, match="must be a response to a preceeding"):
        chat(openai_client, [user("a"), tool_msg()])
    with pytest.raises(openai.BadRequestError, match="'call_b' not found"):
        chat(openai_client, [user("a"), call_turn("call_a"), tool_msg("call_b")])


def test_unanswered_tool_call_rejected(openai_client: Any) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        chat(openai_client, [user("a"), call_turn(), user("b")])
    assert error_text(info.value).endswith("did not have response messages: call_a")
    assert info.value.param == "messages.[1].role"


def test_malformed_tools_rejected(openai_client: Any) -> None:
    with pytest.raises(openai.BadRequestError, match=r"tools\[0\]\.function"):
        chat(openai_client, [user("a")], tools=[{"type": "function"}])
    bad_name = [{"type": "function", "function": {"name": "has space"}}]
    with pytest.raises(openai.BadRequestError, match="does not match pattern"):
        chat(openai_client, [user("a")], tools=bad_name)


def test_deepseek_requires_reasoning_on_tool_call_messages(
    fake: FakeServer, openai_client: Any
) -> None:
    fake.dialect = "deepseek"
    history = [user("a"), call_turn(), tool_msg(), user("b")]
    with pytest.raises(openai.BadRequestError) as info:
        chat(openai_client, history)
    expected = "The `reasoning_content` in the thinking mode must be passed back to the API."
    assert error_text(info.value) == expected
    chat(openai_client, [user("a"), call_turn(reasoning=""), tool_msg(), user("b")])


def test_kimi_names_the_message_index(fake: FakeServer, openai_client: Any) -> None:
    fake.dialect = "kimi"
    with pytest.raises(openai.BadRequestError) as info:
        chat(openai_client, [user("a"), call_turn(), tool_msg()])
    assert error_text(info.value) == (
        "thinking is enabled but reasoning_content is missing in assistant tool call message "
        "at index 1"
    )


def test_legacy_deepseek_rejects_reasoning_and_qwen_is_lenient(
    fake: FakeServer, openai_client: Any
) -> None:
    history = [
        user("a"),
        {"role": "assistant", "content": "x", "reasoning_content": "r"},
        user("b"),
    ]
    fake.dialect = "deepseek-legacy"
    with pytest.raises(openai.BadRequestError, match="reasoning_content"):
        chat(openai_client, history)
    fake.dialect = "qwen"
    chat(openai_client, history)
    chat(openai_client, [user("a"), call_turn(), tool_msg()])


def test_prefix_cache_reports_cached_tokens(fake: FakeServer, openai_client: Any) -> None:
    fake.dialect = "deepseek"
    system = {"role": "system", "content": "rules " * 1200}
    first = chat(openai_client, [system, user("q1")], prompt_cache_key="s1")
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    second = chat(openai_client, [system, user("q2")], prompt_cache_key="s1")
    cached = second.usage.prompt_tokens_details.cached_tokens
    assert cached >= 1024 and cached % 128 == 0
    assert second.usage.model_extra["prompt_cache_hit_tokens"] == cached
    assert (
        second.usage.model_extra["prompt_cache_miss_tokens"] == second.usage.prompt_tokens - cached
    )
    other_key = chat(openai_client, [system, user("q3")], prompt_cache_key="s2")
    assert other_key.usage.prompt_tokens_details.cached_tokens == 0
    fake.clock.advance(301)
    expired = chat(openai_client, [system, user("q4")], prompt_cache_key="s1")
    assert expired.usage.prompt_tokens_details.cached_tokens == 0


def test_context_length_exceeded(fake: FakeServer, openai_client: Any) -> None:
    fake.max_context_tokens = 50
    with pytest.raises(openai.BadRequestError) as info:
        chat(openai_client, [user("y" * 1000)])
    assert info.value.code == "context_length_exceeded"
    assert "maximum context length is 50 tokens" in error_text(info.value)


def test_wrong_key_and_unknown_model(fake: FakeServer, openai_client: Any) -> None:
    fake.models = {"gpt-5"}
    with pytest.raises(openai.NotFoundError) as info:
        chat(openai_client, [user("a")])
    assert info.value.code == "model_not_found"
    fake.api_key = "secret"
    with pytest.raises(openai.AuthenticationError):
        openai_client.chat.completions.create(model="gpt-5", messages=[user("a")])
