"""Engine events folded into Claude Code's stream-json lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    Event,
    Notice,
    RequestFinished,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from lull.model.messages import ToolCall, ToolResult
from lull.model.provider import Usage
from lull.ui.headless.stream import ClaudeStream
from tests.fixtures.claude_code import RECORDED, shape_problems

CALL = ToolCall("call_1", "write_file", {"path": "x.txt", "content": "x"})

WORKSPACE = Path("/work/project")


def lines(*events: Event) -> list[dict[str, Any]]:
    stream = ClaudeStream("s1", "house-model", WORKSPACE)
    return [line for event in events for line in stream.take(event)]


def finished(model: str = "house-model") -> RequestFinished:
    return RequestFinished(Usage(input=7, output=3, cache_read=2), 1, 100, model=model)


def test_a_request_is_one_assistant_message_with_thinking_then_text() -> None:
    out = lines(
        TurnStarted("hi"),
        AssistantThinking("let me "),
        AssistantText("Hel"),
        AssistantThinking("think"),
        AssistantText("lo"),
        finished(),
        TurnFinished("Hello", "end_turn"),
    )
    said, request = out
    assert shape_problems(said, RECORDED["assistant_text"]) == []
    assert said["message"]["content"] == [
        {"type": "thinking", "thinking": "let me think", "signature": ""},
        {"type": "text", "text": "Hello"},
    ]
    assert said["message"]["usage"] == {
        "input_tokens": 7,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 2,
        "output_tokens": 3,
    }
    assert (request["type"], request["subtype"]) == ("lull", "request")


def test_discarded_text_never_becomes_a_message() -> None:
    out = lines(
        AssistantText("half an ans"),
        AttemptDiscarded("half an ans", "cut"),
        AssistantText("whole"),
        finished(),
    )
    texts = [
        b["text"] for line in out if line["type"] == "assistant" for b in line["message"]["content"]
    ]
    assert texts == ["whole"]
    assert [line.get("subtype") for line in out if line["type"] == "lull"] == [
        "discarded",
        "request",
    ]


def test_a_call_answered_without_running_still_comes_after_its_tool_use() -> None:
    denied = ToolResult("call_1", "write_file", "denied: cannot ask", is_error=True)
    out = lines(finished(), ToolFinished(CALL, denied))
    use, result = [line for line in out if line["type"] != "lull"]
    assert shape_problems(use, RECORDED["assistant_tool_use"]) == []
    assert shape_problems(result, RECORDED["tool_result"]) == []
    assert use["message"]["content"][0]["id"] == result["message"]["content"][0]["tool_use_id"]
    assert result["message"]["content"][0]["is_error"] is True


def test_a_started_call_is_announced_once() -> None:
    done = ToolResult("call_1", "write_file", "wrote x.txt")
    out = lines(finished(), ToolStarted(CALL, "x.txt"), ToolFinished(CALL, done))
    assert [line["type"] for line in out] == ["lull", "assistant", "user"]


def test_tool_use_blocks_name_tools_as_claude_code_does() -> None:
    calls = [
        ToolCall("c1", "run_shell_command", {"command": "ls"}),
        ToolCall("c2", "edit", {"path": "a"}),
        ToolCall("c3", "web_search", {"query": "q"}),
        ToolCall("c4", "skill", {"name": "release"}),
        ToolCall("c5", "task", {"prompt": "p"}),
        ToolCall("c6", "mcp__github__list_issues", {}),
        ToolCall("c7", "note", {}),
    ]
    out = lines(finished(), *(ToolStarted(call, "") for call in calls))
    uses = [line["message"]["content"][0] for line in out if line["type"] == "assistant"]
    assert [(use["name"], use["lull_name"]) for use in uses] == [
        ("Bash", "run_shell_command"),
        ("Edit", "edit"),
        ("WebSearch", "web_search"),
        ("Skill", "skill"),
        ("Task", "task"),
        ("mcp__github__list_issues", "mcp__github__list_issues"),
        ("note", "note"),  # Claude Code has no such tool: lull's name
    ]
    assert uses[1]["input"] == {"path": "a", "file_path": "/work/project/a"}  # Claude Code's key
    assert all(shape_problems(line, RECORDED["assistant_tool_use"]) == [] for line in out[1:])


def test_lulls_own_events_are_lines_of_type_lull() -> None:
    [line] = lines(Notice("warning", "careful"))
    assert line == {
        "type": "lull",
        "subtype": "notice",
        "session_id": "s1",
        "level": "warning",
        "text": "careful",
    }
