"""Neutral request -> OpenAI Chat Completions wire dicts, per vendor dialect."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lull.model.messages import Image, Message, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ModelRequest, ToolSpec
from lull.providers.config import Vendor
from lull.providers.openai_wire import build_params, message_params


def user(*parts: Any) -> Message:
    return Message("user", tuple(parts))


def assistant(*parts: Any, provider: str | None = "openai") -> Message:
    return Message("assistant", tuple(parts), origin="model", provider=provider)


TOOL_LOOP = [
    user(Text("fix it")),
    assistant(
        Thinking("need to read"),
        ToolCall("call_1", "read_file", {"path": "ü.py", "limit": 5}),
        ToolCall("call_2", "glob", {"pattern": "*"}),
    ),
    user(
        ToolResult("call_1", "read_file", "print()"),
        ToolResult("call_2", "glob", "permission denied", is_error=True),
    ),
    assistant(Thinking("done reading"), Text("Fixed.")),
    user(Text("thanks")),
]


def test_full_request_for_openai() -> None:
    schema = {"type": "object", "properties": {}}
    request = ModelRequest(
        system="You are lull.",
        environment="date: today",
        messages=[user(Text("hi"))],
        tools=[ToolSpec("glob", "Find files.", schema)],
        max_output_tokens=1000,
        session_id="s_123",
    )
    assert build_params(request, "gpt-5.1", "openai") == {
        "model": "gpt-5.1",
        "messages": [
            {"role": "system", "content": "You are lull.\n\ndate: today"},
            {"role": "user", "content": "hi"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "glob", "description": "Find files.", "parameters": schema},
            }
        ],
        "max_completion_tokens": 1000,
        "prompt_cache_key": "s_123",
        "stream": True,
        "stream_options": {"include_usage": True},
    }


@pytest.mark.parametrize("vendor", ["deepseek", "qwen", "vllm", "ollama", "generic"])
def test_other_vendors_use_max_tokens_and_no_cache_key(vendor: Vendor) -> None:
    request = ModelRequest(system="S", messages=[user(Text("hi"))], session_id="s_1")
    params = build_params(request, "m", vendor)
    assert params["max_tokens"] == 8192
    assert "max_completion_tokens" not in params
    assert "prompt_cache_key" not in params
    assert "tools" not in params


@pytest.mark.parametrize("vendor", ["openai", "kimi"])
def test_cache_key_is_the_session_id_unless_turned_off(vendor: Vendor) -> None:
    request = ModelRequest(system="S", messages=[user(Text("hi"))], session_id="s_1")
    assert build_params(request, "m", vendor)["prompt_cache_key"] == "s_1"
    off = ModelRequest(
        system="S", messages=[user(Text("hi"))], session_id="s_1", prompt_cache_key=False
    )
    assert "prompt_cache_key" not in build_params(off, "m", vendor)
    no_caching = ModelRequest(
        system="S", messages=[user(Text("hi"))], session_id="s_1", prompt_caching=False
    )
    assert "prompt_cache_key" not in build_params(no_caching, "m", vendor)


def test_system_prompt_is_a_byte_stable_prefix() -> None:
    first = message_params("STATIC", "env one", [], "openai")[0]["content"]
    second = message_params("STATIC", "env two", [], "openai")[0]["content"]
    assert first.startswith("STATIC\n\n") and second.startswith("STATIC\n\n")
    assert message_params("STATIC", "", [], "openai") == [{"role": "system", "content": "STATIC"}]
    assert message_params("", "", [], "openai") == []


def test_tool_loop_messages_for_openai() -> None:
    wire = message_params("", "", TOOL_LOOP, "openai")
    assert wire == [
        {"role": "user", "content": "fix it"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "read_file",
                        "arguments": '{"path": "ü.py", "limit": 5}',
                    },
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "glob", "arguments": '{"pattern": "*"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "print()"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: permission denied"},
        {"role": "assistant", "content": "Fixed."},
        {"role": "user", "content": "thanks"},
    ]


def reasoning(vendor: Vendor, history: list[Message] = TOOL_LOOP) -> list[Any]:
    wire = message_params("", "", history, vendor)
    return [m.get("reasoning_content") for m in wire if m["role"] == "assistant"]


@pytest.mark.parametrize("vendor", ["deepseek", "kimi"])
def test_deepseek_and_kimi_get_reasoning_back(vendor: Vendor) -> None:
    assert reasoning(vendor) == ["need to read", "done reading"]


@pytest.mark.parametrize("vendor", ["deepseek", "kimi"])
def test_tool_call_messages_without_reasoning_carry_empty_string(vendor: Vendor) -> None:
    history = [
        user(Text("q")),
        assistant(ToolCall("c", "glob", {})),
        user(ToolResult("c", "glob", "x")),
        assistant(Text("plain")),
        assistant(Thinking("from claude", "sig"), ToolCall("d", "glob", {}), provider="anthropic"),
        user(ToolResult("d", "glob", "y")),
        assistant(Thinking("claude again", "sig"), Text("hi"), provider="anthropic"),
    ]
    wire = message_params("", "", history, vendor)
    assistants = [m for m in wire if m["role"] == "assistant"]
    assert assistants[0]["reasoning_content"] == ""
    assert "reasoning_content" not in assistants[1]
    assert assistants[2]["reasoning_content"] == ""
    assert "reasoning_content" not in assistants[3]


@pytest.mark.parametrize(
    "vendor", ["deepseek-legacy", "openai", "qwen", "vllm", "ollama", "generic"]
)
def test_other_dialects_never_get_reasoning(vendor: Vendor) -> None:
    assert reasoning(vendor) == [None, None]


def test_tool_result_followed_by_user_text_and_images() -> None:
    history = [
        assistant(ToolCall("c", "glob", {})),
        user(ToolResult("c", "glob", "Error: already prefixed", is_error=True), Text("look")),
        user(Text("and"), Image("image/png", "AAAA")),
    ]
    wire = message_params("", "", history, "generic")
    assert wire[1:] == [
        {"role": "tool", "tool_call_id": "c", "content": "Error: already prefixed"},
        {"role": "user", "content": "look"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
    ]


def test_several_text_parts_join_with_a_blank_line() -> None:
    wire = message_params("", "", [user(Text("summary"), Text("prompt"))], "openai")
    assert wire == [{"role": "user", "content": "summary\n\nprompt"}]


def test_invalid_arguments_go_back_as_the_original_text() -> None:
    history = [assistant(ToolCall("c", "edit", {"_raw": '{"path": '}))]
    call = message_params("", "", history, "openai")[0]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"path": '


def test_arguments_keep_key_order_and_unicode() -> None:
    args = {"z": 1, "a": "é", "nested": {"b": [1, 2]}}
    call = message_params("", "", [assistant(ToolCall("c", "t", args))], "openai")[0]
    text = call["tool_calls"][0]["function"]["arguments"]
    assert text == '{"z": 1, "a": "é", "nested": {"b": [1, 2]}}'
    assert json.loads(text) == args


def test_assistant_without_text_or_calls_sends_empty_content() -> None:
    wire = message_params("", "", [assistant(Thinking("only thinking"))], "openai")
    assert wire == [{"role": "assistant", "content": ""}]
