"""Neutral request -> Anthropic wire dicts, asserted exactly."""

from __future__ import annotations

from typing import Any

from lull.model.messages import Image, Message, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ModelRequest, ThinkingConfig, ToolSpec
from lull.providers.anthropic_wire import build_params, message_params, thinking_param

SIGNATURE = "EqQBCkYIARgCKkB+/=sig=="


def user(*parts: Any) -> Message:
    return Message("user", tuple(parts))


def assistant(*parts: Any, provider: str | None = "anthropic") -> Message:
    return Message("assistant", tuple(parts), origin="model", provider=provider)


def markers(params: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = list(params.get("system", [])) + list(params.get("tools", []))
    for message in params["messages"]:
        blocks.extend(message["content"])
    return [b for b in blocks if "cache_control" in b]


def test_system_blocks_static_first_then_environment() -> None:
    request = ModelRequest(
        system="You are lull.", environment="cwd: /w", messages=[user(Text("hi"))]
    )
    params = build_params(request, "claude-x")
    assert params["system"] == [
        {"type": "text", "text": "You are lull."},
        {"type": "text", "text": "cwd: /w"},
    ]
    assert params["model"] == "claude-x"
    assert params["max_tokens"] == 8192
    assert "thinking" not in params


def test_empty_environment_gives_one_system_block() -> None:
    params = build_params(ModelRequest(system="S", messages=[user(Text("hi"))]), "m")
    assert params["system"] == [{"type": "text", "text": "S"}]


def test_a_prompt_under_the_cache_minimum_gets_no_markers() -> None:
    params = build_params(ModelRequest(system="S", messages=[user(Text("hi"))]), "m")
    assert markers(params) == []


def test_tools_as_name_description_input_schema() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    request = ModelRequest(
        system="S", messages=[user(Text("hi"))], tools=[ToolSpec("read_file", "Read.", schema)]
    )
    params = build_params(request, "m")
    assert params["tools"] == [
        {"name": "read_file", "description": "Read.", "input_schema": schema}
    ]


def test_tool_loop_round_trip_with_thinking_bytes_unchanged() -> None:
    history = [
        user(Text("list files")),
        assistant(
            Thinking("I should run ls.", SIGNATURE),
            Thinking("", "opaque-redacted", redacted=True),
            Text("Running ls."),
            ToolCall("toolu_1", "run_shell_command", {"command": "ls"}),
            ToolCall("toolu_2", "glob", {"pattern": "*.py"}),
        ),
        user(
            ToolResult("toolu_1", "run_shell_command", "a.py\nb.py"),
            ToolResult("toolu_2", "glob", "no such dir", is_error=True),
        ),
    ]
    assert message_params(history) == [
        {"role": "user", "content": [{"type": "text", "text": "list files"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should run ls.", "signature": SIGNATURE},
                {"type": "redacted_thinking", "data": "opaque-redacted"},
                {"type": "text", "text": "Running ls."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "run_shell_command",
                    "input": {"command": "ls"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "glob", "input": {"pattern": "*.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py\nb.py"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "no such dir",
                    "is_error": True,
                },
            ],
        },
    ]


def test_thinking_from_another_provider_is_dropped() -> None:
    history = [
        user(Text("q")),
        assistant(Thinking("openai reasoning"), Text("answer"), provider="openai"),
    ]
    assert message_params(history)[1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "answer"}],
    }


def test_tool_results_come_first_and_same_role_messages_merge() -> None:
    history = [
        user(Text("go")),
        assistant(ToolCall("t1", "glob", {})),
        user(Text("also note this"), ToolResult("t1", "glob", "x")),
        user(Text("and this")),
    ]
    wire = message_params(history)
    assert wire[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "x"},
            {"type": "text", "text": "also note this"},
            {"type": "text", "text": "and this"},
        ],
    }
    assert len(wire) == 3


def test_empty_text_and_empty_messages_are_not_sent() -> None:
    history = [user(Text("q")), assistant(Thinking("x"), provider="openai"), user(Text(""))]
    assert message_params(history) == [{"role": "user", "content": [{"type": "text", "text": "q"}]}]


def test_image_block() -> None:
    wire = message_params([user(Image("image/png", "iVBOR"), Text("what is this?"))])
    assert wire[0]["content"][0] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
    }


def test_thinking_config() -> None:
    assert thinking_param(ThinkingConfig(), 8192) == (None, 8192)
    assert thinking_param(ThinkingConfig(enabled=True), 8192) == (
        {"type": "enabled", "budget_tokens": 4096},
        8192,
    )
    assert thinking_param(ThinkingConfig(enabled=True), 64000) == (
        {"type": "enabled", "budget_tokens": 16000},
        64000,
    )
    assert thinking_param(ThinkingConfig(True, 10000), 8192) == (
        {"type": "enabled", "budget_tokens": 10000},
        14096,
    )
    assert thinking_param(ThinkingConfig(True, 100), 8192)[0] == {
        "type": "enabled",
        "budget_tokens": 1024,
    }
    budget = thinking_param(ThinkingConfig(enabled=True), 1500)
    assert budget[0] is not None and budget[0]["budget_tokens"] < budget[1]


def test_thinking_request_parameter() -> None:
    request = ModelRequest(system="S", messages=[user(Text("q"))], thinking=ThinkingConfig(True))
    params = build_params(request, "m")
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 4096}
