"""OpenAI stream chunks (the SDK's own models) -> neutral deltas, parts and usage."""

from __future__ import annotations

from typing import Any

import pytest

from lull.model.messages import Text, Thinking, ToolCall
from lull.model.provider import (
    Completed,
    ProviderError,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    Usage,
)
from lull.providers.openai_events import OpenAIStreamState


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> Any:
    from openai.types.chat import ChatCompletionChunk

    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "deepseek-chat",
        "choices": choices,
        **extra,
    }
    return ChatCompletionChunk.model_validate(body)


def call(index: int, arguments: str, call_id: str | None = None, name: str | None = None) -> Any:
    fragment: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id:
        fragment.update(id=call_id, type="function")
        fragment["function"]["name"] = name
    return fragment


def run(chunks: list[Any]) -> tuple[list[Any], Completed]:
    state = OpenAIStreamState()
    out: list[Any] = []
    for item in chunks:
        out.extend(state.feed(item))
    return out, state.completed()


def test_reasoning_text_and_parallel_tool_calls() -> None:
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "total_tokens": 1050,
        "prompt_tokens_details": {"cached_tokens": 768},
        "completion_tokens_details": {"reasoning_tokens": 20},
    }
    deltas, done = run(
        [
            chunk({"role": "assistant", "content": ""}),
            chunk({"reasoning_content": "Think "}),
            chunk({"reasoning": "more."}),
            chunk({"content": "Reading."}),
            chunk({"tool_calls": [call(0, "", "call_a", "read_file")]}),
            chunk({"tool_calls": [call(0, '{"path":')]}),
            chunk({"tool_calls": [call(1, '{"pattern": "*"}', "call_b", "glob")]}),
            chunk({"tool_calls": [call(0, ' "x.py"}')]}),
            chunk({}, finish="tool_calls"),
            chunk(None, usage=usage),
        ]
    )
    assert deltas == [
        ThinkingDelta("Think "),
        ThinkingDelta("more."),
        TextDelta("Reading."),
        ToolCallStarted("call_a", "read_file"),
        ToolCallStarted("call_b", "glob"),
    ]
    assert done.parts == (
        Thinking("Think more."),
        Text("Reading."),
        ToolCall("call_a", "read_file", {"path": "x.py"}),
        ToolCall("call_b", "glob", {"pattern": "*"}),
    )
    assert done.usage == Usage(input=232, output=50, cache_read=768, reasoning=20)
    assert done.stop_reason == "tool_use"
    assert done.model == "deepseek-chat"


def test_deepseek_cache_hit_field() -> None:
    usage = {
        "prompt_tokens": 640,
        "completion_tokens": 5,
        "total_tokens": 645,
        "prompt_cache_hit_tokens": 512,
        "prompt_cache_miss_tokens": 128,
    }
    _, done = run([chunk({"content": "ok"}, finish="stop"), chunk(None, usage=usage)])
    assert done.usage == Usage(input=128, output=5, cache_read=512)
    assert done.parts == (Text("ok"),)
    assert done.stop_reason == "end_turn"


@pytest.mark.parametrize(
    ("finish", "stop"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("function_call", "tool_use"),
    ],
)
def test_finish_reasons(finish: str, stop: str) -> None:
    _, done = run([chunk({"content": "x"}, finish=finish)])
    assert done.stop_reason == stop
    assert done.usage == Usage(reported=False)  # no usage chunk came


def test_tool_calls_with_finish_stop_still_mean_tool_use() -> None:
    _, done = run([chunk({"tool_calls": [call(0, "{}", "c1", "glob")]}, finish="stop")])
    assert done.stop_reason == "tool_use"
    assert done.parts == (ToolCall("c1", "glob", {}),)


def test_missing_call_id_gets_one() -> None:
    fragment = {"index": 0, "function": {"name": "glob", "arguments": ""}}
    deltas, done = run([chunk({"tool_calls": [fragment]}, finish="tool_calls")])
    started = deltas[0]
    assert isinstance(started, ToolCallStarted) and started.call_id.startswith("call_")
    assert done.parts == (ToolCall(started.call_id, "glob", {}),)


def test_invalid_arguments_are_kept_raw() -> None:
    _, done = run(
        [chunk({"tool_calls": [call(0, "{'bad': 1}", "c", "edit")]}, finish="tool_calls")]
    )
    assert done.parts == (ToolCall("c", "edit", {"_raw": "{'bad': 1}"}),)


def test_stream_that_ends_before_finish_reason_is_cut() -> None:
    state = OpenAIStreamState()
    state.feed(chunk({"content": "half an ans"}))
    with pytest.raises(ProviderError) as info:
        state.completed()
    assert info.value.kind == "stream_cut"


def test_kimi_top_level_cached_tokens() -> None:
    usage = {"prompt_tokens": 1336, "completion_tokens": 31, "total_tokens": 1367}
    _, done = run(
        [
            chunk({"content": "ok"}, finish="stop"),
            chunk(None, usage={**usage, "cached_tokens": 1280}),
        ]
    )
    assert done.usage == Usage(input=56, output=31, cache_read=1280)


def test_moonshot_usage_on_the_final_choice_is_read() -> None:
    usage = {"prompt_tokens": 1336, "completion_tokens": 31, "total_tokens": 1367}
    final = chunk({}, finish="stop")
    final.choices[0].usage = {**usage, "cached_tokens": 1280}  # extra field, as the SDK keeps it
    _, done = run([chunk({"content": "ok"}), final])
    assert done.usage == Usage(input=56, output=31, cache_read=1280)


def test_gpt_cache_writes_are_not_uncached_input() -> None:
    usage = {
        "prompt_tokens": 5000,
        "completion_tokens": 10,
        "total_tokens": 5010,
        "prompt_tokens_details": {"cached_tokens": 3000, "cache_write_tokens": 1800},
    }
    _, done = run([chunk({"content": "ok"}, finish="stop"), chunk(None, usage=usage)])
    assert done.usage == Usage(input=200, output=10, cache_read=3000, cache_write=1800)
