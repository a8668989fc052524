"""Anthropic raw stream events (the SDK's own models) -> neutral deltas and parts."""

from __future__ import annotations

import functools
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
from lull.providers.anthropic_events import AnthropicStreamState


@functools.cache
def adapter() -> Any:
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    return TypeAdapter(RawMessageStreamEvent)


def events(*raw: dict[str, Any]) -> list[Any]:
    """The SDK's own event models, as it would yield them from a stream."""
    return [adapter().validate_python(item) for item in raw]


def start(usage: dict[str, Any]) -> dict[str, Any]:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return {"type": "message_start", "message": message}


def block(index: int, content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content}


def delta(index: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": body}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def finish(reason: str, output: int, **extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": {"output_tokens": output, **extra},
        },
        {"type": "message_stop"},
    ]


TOOL_LOOP = [
    start(
        {
            "input_tokens": 12,
            "output_tokens": 1,
            "cache_read_input_tokens": 900,
            "cache_creation_input_tokens": 40,
        }
    ),
    block(0, {"type": "thinking", "thinking": "", "signature": ""}),
    delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
    delta(0, {"type": "thinking_delta", "thinking": "look."}),
    delta(0, {"type": "signature_delta", "signature": "SIG+/=="}),
    stop(0),
    block(1, {"type": "redacted_thinking", "data": "REDACTED"}),
    stop(1),
    block(2, {"type": "text", "text": ""}),
    delta(2, {"type": "text_delta", "text": "Checking"}),
    stop(2),
    block(3, {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {}}),
    delta(3, {"type": "input_json_delta", "partial_json": ""}),
    delta(3, {"type": "input_json_delta", "partial_json": '{"path": "a.p'}),
    delta(3, {"type": "input_json_delta", "partial_json": 'y"}'}),
    stop(3),
    block(4, {"type": "tool_use", "id": "toolu_b", "name": "glob", "input": {}}),
    stop(4),
    *finish("tool_use", 77, output_tokens_details={"thinking_tokens": 30}),
]


def run(raw: list[dict[str, Any]]) -> tuple[list[Any], Completed]:
    state = AnthropicStreamState()
    out: list[Any] = []
    for event in events(*raw):
        out.extend(state.feed(event))
    return out, state.completed()


def test_tool_loop_response_deltas_and_parts() -> None:
    deltas, done = run(TOOL_LOOP)
    assert deltas == [
        ThinkingDelta("Let me "),
        ThinkingDelta("look."),
        TextDelta("Checking"),
        ToolCallStarted("toolu_a", "read_file"),
        ToolCallStarted("toolu_b", "glob"),
    ]
    assert done.parts == (
        Thinking("Let me look.", "SIG+/=="),
        Thinking("", "REDACTED", redacted=True),
        Text("Checking"),
        ToolCall("toolu_a", "read_file", {"path": "a.py"}),
        ToolCall("toolu_b", "glob", {}),
    )
    assert done.usage == Usage(input=12, output=77, cache_read=900, cache_write=40, reasoning=30)
    assert done.stop_reason == "tool_use"
    assert done.model == "claude-test"


@pytest.mark.parametrize(
    ("wire", "neutral"),
    [
        ("end_turn", "end_turn"),
        ("stop_sequence", "end_turn"),
        ("max_tokens", "max_tokens"),
        ("model_context_window_exceeded", "max_tokens"),
        ("refusal", "refusal"),
        ("pause_turn", "other"),
    ],
)
def test_stop_reasons(wire: str, neutral: str) -> None:
    _, done = run([start({"input_tokens": 1, "output_tokens": 0}), *finish(wire, 1)])
    assert done.stop_reason == neutral
    assert done.parts == ()


def test_invalid_tool_json_is_kept_raw() -> None:
    raw = [
        start({"input_tokens": 1, "output_tokens": 0}),
        block(0, {"type": "tool_use", "id": "t", "name": "edit", "input": {}}),
        delta(0, {"type": "input_json_delta", "partial_json": '{"path": '}),
        stop(0),
        *finish("tool_use", 3),
    ]
    _, done = run(raw)
    assert done.parts == (ToolCall("t", "edit", {"_raw": '{"path": '}),)


def test_stream_without_message_stop_is_cut() -> None:
    state = AnthropicStreamState()
    for event in events(*TOOL_LOOP[:8]):
        state.feed(event)
    with pytest.raises(ProviderError) as info:
        state.completed()
    assert info.value.kind == "stream_cut"
    assert "partial answer was discarded" in info.value.message


def test_one_hour_cache_writes_are_kept_apart() -> None:
    usage = {
        "input_tokens": 5,
        "output_tokens": 1,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 1500,
        "cache_creation": {"ephemeral_5m_input_tokens": 500, "ephemeral_1h_input_tokens": 1000},
    }
    _, done = run([start(usage), *finish("end_turn", 9)])
    assert done.usage == Usage(
        input=5, output=9, cache_read=2000, cache_write=1500, cache_write_1h=1000
    )
    assert done.usage.prompt_tokens == 3505
