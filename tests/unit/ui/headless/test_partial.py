"""``--include-partial-messages``: engine events as the Messages API's raw stream events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    Event,
    RequestFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from lull.model.messages import ToolCall
from lull.model.provider import Usage
from lull.ui.headless.stream import ClaudeStream

CALL = ToolCall("call_1", "read_file", {"path": "a.txt"})

WORKSPACE = Path("/work/project")


def lines(*events: Event) -> list[dict[str, Any]]:
    stream = ClaudeStream("s1", "house-model", WORKSPACE, partial=True)
    return [line for event in events for line in stream.take(event)]


def raw(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line["event"] for line in out if line["type"] == "stream_event"]


def test_a_request_streams_as_the_messages_apis_events() -> None:
    out = lines(
        TurnStarted("hi"),
        AssistantThinking("let me "),
        AssistantThinking("see"),
        AssistantText("Reading"),
        AssistantText(" it."),
        RequestFinished(
            Usage(input=7, output=3), 1, 100, stop_reason="tool_use", tool_calls=(CALL,)
        ),
        ToolStarted(CALL, "a.txt"),
    )
    events = raw(out)
    assert [(e["type"], e.get("index")) for e in events] == [
        ("message_start", None),
        ("content_block_start", 0),
        ("content_block_delta", 0),
        ("content_block_delta", 0),
        ("content_block_stop", 0),
        ("content_block_start", 1),
        ("content_block_delta", 1),
        ("content_block_delta", 1),
        ("content_block_stop", 1),
        ("content_block_start", 2),
        ("content_block_delta", 2),
        ("content_block_stop", 2),
        ("message_delta", None),
        ("message_stop", None),
    ]
    start = events[0]["message"]
    assert (start["role"], start["model"], start["content"]) == ("assistant", "house-model", [])
    assert events[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert events[2]["delta"] == {"type": "thinking_delta", "thinking": "let me "}
    assert events[5]["content_block"] == {"type": "text", "text": ""}
    assert events[7]["delta"] == {"type": "text_delta", "text": " it."}
    assert events[9]["content_block"] == {
        "type": "tool_use",
        "id": "call_1",
        "name": "Read",
        "input": {},
    }
    assert events[10]["delta"] == {"type": "input_json_delta", "partial_json": '{"path": "a.txt"}'}
    assert events[12]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert events[12]["usage"]["output_tokens"] == 3
    envelopes = [line for line in out if line["type"] == "stream_event"]
    assert all(
        set(line) == {"type", "event", "session_id", "parent_tool_use_id", "uuid"}
        and (line["session_id"], line["parent_tool_use_id"]) == ("s1", None)
        for line in envelopes
    )
    said, use = [line for line in out if line["type"] == "assistant"]
    assert said["message"]["id"] == use["message"]["id"] == start["id"]


def test_a_broken_stream_ends_its_message_without_a_stop_reason() -> None:
    out = lines(
        AssistantText("half an ans"),
        AttemptDiscarded("half an ans", "cut"),
        AssistantText("whole"),
        RequestFinished(Usage(), 1, 100, stop_reason="end_turn"),
        TurnFinished("whole", "end_turn"),
    )
    events = raw(out)
    kinds = [e["type"] for e in events]
    assert kinds.count("message_start") == kinds.count("message_stop") == 2
    first_stop = next(e for e in events if e["type"] == "message_delta")
    assert first_stop["delta"]["stop_reason"] is None
    [said] = [line for line in out if line["type"] == "assistant"]
    assert said["message"]["content"] == [{"type": "text", "text": "whole"}]


def test_without_the_flag_there_are_no_stream_events() -> None:
    stream = ClaudeStream("s1", "m", WORKSPACE)
    out = stream.take(AssistantText("hi")) + stream.take(RequestFinished(Usage(), 1, 1))
    assert all(line["type"] != "stream_event" for line in out)
