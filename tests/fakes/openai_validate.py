"""Chat Completions request validation, including OpenAI-compatible vendor dialect rules."""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.errors import bad_request
from tests.fakes.images import check_openai_image

DIALECTS = ("openai", "deepseek", "kimi", "qwen", "deepseek-legacy")
ROLES = ("system", "developer", "user", "assistant", "tool", "function")
FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
DEEPSEEK_MISSING = "The `reasoning_content` in the thinking mode must be passed back to the API."
KIMI_MISSING = (
    "thinking is enabled but reasoning_content is missing in assistant tool call message "
    "at index {n}"
)


def _missing(param: str) -> Exception:
    return bad_request(
        f"Missing required parameter: '{param}'.", code="missing_required_parameter", param=param
    )


def _check_tools(body: dict[str, Any]) -> set[str]:
    tools = body.get("tools")
    if tools is None:
        return set()
    if not isinstance(tools, list):
        raise bad_request("Invalid type for 'tools': expected an array.", param="tools")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(tool, dict) or "type" not in tool:
            raise _missing(f"{where}.type")
        if tool["type"] != "function":
            continue
        function = tool.get("function")
        if not isinstance(function, dict):
            raise _missing(f"{where}.function")
        name = function.get("name")
        if not isinstance(name, str) or not FUNCTION_NAME.match(name):
            raise bad_request(
                f"Invalid '{where}.function.name': string does not match pattern. Expected a "
                "string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                code="invalid_value",
                param=f"{where}.function.name",
            )
        if "parameters" in function and not isinstance(function["parameters"], dict):
            raise bad_request(
                f"Invalid type for '{where}.function.parameters': expected an object.",
                code="invalid_type",
                param=f"{where}.function.parameters",
            )
        _check_parameters(where, name, function.get("parameters"))
        if name in names:
            raise bad_request(
                f"Invalid '{where}.function.name': duplicate function name '{name}'.",
                code="invalid_value",
                param=f"{where}.function.name",
            )
        names.add(name)
    return names


def _check_parameters(where: str, name: str, schema: object) -> None:
    """OpenAI's rule for a function's parameters: an object schema, no combinator at the top."""
    if not isinstance(schema, dict):
        return
    if schema.get("type") != "object":
        raise bad_request(
            f"Invalid schema for function '{name}': schema must be a JSON Schema of "
            f"'type: \"object\"', got 'type: \"{schema.get('type')}\"'.",
            code="invalid_function_parameters",
            param=f"{where}.function.parameters",
        )
    refused = [key for key in ("anyOf", "oneOf", "allOf", "enum", "not") if key in schema]
    if refused:
        raise bad_request(
            f"Invalid schema for function '{name}': schema must have type 'object' and not "
            f"have '{refused[0]}' at the top level.",
            code="invalid_function_parameters",
            param=f"{where}.function.parameters",
        )


def _check_tool_choice(body: dict[str, Any], names: set[str]) -> None:
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not names and choice != "none":
        raise bad_request(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
            param="tool_choice",
        )
    if isinstance(choice, str) and choice not in ("none", "auto", "required"):
        raise bad_request(f"Invalid value: '{choice}'.", code="invalid_value", param="tool_choice")
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if name not in names:
            raise bad_request(
                f"Invalid value for 'tool_choice': no function named '{name}' was specified in "
                "the 'tools' parameter.",
                param="tool_choice",
            )


def _check_tool_calls(i: int, message: dict[str, Any]) -> list[str]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise bad_request(f"Invalid type for 'messages[{i}].tool_calls': expected an array.")
    ids: list[str] = []
    for k, call in enumerate(calls):
        where = f"messages[{i}].tool_calls[{k}]"
        if not isinstance(call, dict) or not isinstance(call.get("id"), str):
            raise _missing(f"{where}.id")
        function = call.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise _missing(f"{where}.function.name")
        if not isinstance(function.get("arguments"), str):
            raise bad_request(
                f"Invalid type for '{where}.function.arguments': expected a string.",
                code="invalid_type",
                param=f"{where}.function.arguments",
            )
        ids.append(call["id"])
    return ids


def _check_message_shape(i: int, message: Any) -> dict[str, Any]:
    if not isinstance(message, dict):
        raise bad_request(f"Invalid type for 'messages[{i}]': expected an object.")
    role = message.get("role")
    if role not in ROLES:
        raise bad_request(
            f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', "
            "'function', 'tool', and 'developer'.",
            code="invalid_value",
            param=f"messages[{i}].role",
        )
    content = message.get("content")
    if role in ("system", "developer", "user", "tool") and not isinstance(content, str | list):
        raise _missing(f"messages[{i}].content")
    if role == "assistant" and content is None and not message.get("tool_calls"):
        raise bad_request(
            "Invalid value for 'content': expected a string, got null.",
            param=f"messages.[{i}].content",
        )
    return message


def _unanswered(index: int, missing: list[str]) -> Exception:
    return bad_request(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        f"each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        f"{', '.join(missing)}",
        param=f"messages.[{index}].role",
    )


def _check_pairing(messages: list[dict[str, Any]]) -> None:
    open_index = -1
    offered: list[str] = []
    answered: set[str] = set()
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                raise _missing(f"messages[{i}].tool_call_id")
            if open_index < 0:
                raise bad_request(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            if call_id not in offered:
                raise bad_request(
                    f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' "
                    "of previous message.",
                    param=f"messages.[{i}].tool_call_id",
                )
            answered.add(call_id)
            continue
        missing = [c for c in offered if c not in answered]
        if open_index >= 0 and missing:
            raise _unanswered(open_index, missing)
        offered = _check_tool_calls(i, message) if message["role"] == "assistant" else []
        open_index, answered = (i if offered else -1), set()
    missing = [c for c in offered if c not in answered]
    if open_index >= 0 and missing:
        raise _unanswered(open_index, missing)


def _thinking_disabled(body: dict[str, Any]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") == "disabled"


def _check_dialect(body: dict[str, Any], messages: list[dict[str, Any]], dialect: str) -> None:
    for i, message in enumerate(messages):
        if dialect == "deepseek-legacy" and "reasoning_content" in message:
            raise bad_request(
                f"messages[{i}]: `reasoning_content` must not be included in input messages; "
                "it is for display only (deepseek-reasoner).",
                param=f"messages[{i}].reasoning_content",
            )
        needs_reasoning = message["role"] == "assistant" and bool(message.get("tool_calls"))
        if not needs_reasoning or "reasoning_content" in message or _thinking_disabled(body):
            continue
        if dialect == "deepseek":
            raise bad_request(DEEPSEEK_MISSING)
        if dialect == "kimi":
            raise bad_request(KIMI_MISSING.format(n=i))


def validate_openai(body: dict[str, Any], dialect: str) -> None:
    """Raise WireError(400) for anything the real service (in ``dialect``) would reject."""
    if dialect not in DIALECTS:
        raise ValueError(f"fake.dialect must be one of {DIALECTS}, got {dialect!r}")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise bad_request("you must provide a model parameter", param="model")
    raw = body.get("messages")
    if not isinstance(raw, list):
        raise _missing("messages")
    if not raw:
        raise bad_request("[] is too short - 'messages'", code="invalid_value", param="messages")
    messages = [_check_message_shape(i, m) for i, m in enumerate(raw)]
    _check_tool_choice(body, _check_tools(body))
    if body.get("stream_options") is not None and not body.get("stream"):
        raise bad_request(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )
    _check_pairing(messages)
    _check_dialect(body, messages, dialect)
    _check_images(messages, body["model"])


def _check_images(messages: list[dict[str, Any]], model: str) -> None:
    """Image parts only in user messages, each a valid data URL for a model that takes them."""
    for i, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                if message["role"] != "user":
                    raise bad_request(
                        f"Invalid 'messages[{i}]': image content is only allowed in user messages.",
                        param=f"messages[{i}].content",
                    )
                check_openai_image(i, part, model)
