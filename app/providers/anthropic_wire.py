"""Neutral request -> Anthropic Messages API parameters (pure, no SDK import).

Layout of a request: tools, then the system prompt as text blocks (static
``system`` first, ``environment`` second), then the messages. Prompt-cache
markers go on the last system block (caching tools + system) and on the last
cacheable block of the conversation, so each request reads the previous one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.messages import Image, Message, Part, Text, Thinking, ToolCall, ToolResult
from app.core.provider import ModelRequest, ThinkingConfig, ToolSpec

PROVIDER_NAME = "anthropic"
MAX_CACHE_MARKERS = 4
MIN_THINKING_BUDGET = 1024
DEFAULT_THINKING_BUDGET = 16_000
ANSWER_HEADROOM = 4096
_UNCACHEABLE = frozenset({"thinking", "redacted_thinking"})


def build_params(request: ModelRequest, model: str) -> dict[str, Any]:
    """The keyword arguments for ``messages.create`` (without ``stream``)."""
    thinking, max_tokens = thinking_param(request.thinking, request.max_output_tokens)
    params: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    system = system_blocks(request.system, request.environment)
    tools = tool_params(request.tools)
    messages = message_params(request.messages)
    add_cache_markers(tools, system, messages)
    if system:
        params["system"] = system
    if tools:
        params["tools"] = tools
    if thinking is not None:
        params["thinking"] = thinking
    params["messages"] = messages
    return params


def system_blocks(system: str, environment: str) -> list[dict[str, Any]]:
    """The system prompt as text blocks: the static part first, the dynamic facts second."""
    return [{"type": "text", "text": text} for text in (system, environment) if text]


def tool_params(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tool definitions in the order given (the caller keeps it deterministic)."""
    return [
        {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
        for t in tools
    ]


def thinking_param(config: ThinkingConfig, max_tokens: int) -> tuple[dict[str, Any] | None, int]:
    """The ``thinking`` parameter and the ``max_tokens`` to send with it.

    The budget must be at least 1024 and below ``max_tokens``; when an explicit
    budget does not fit, ``max_tokens`` is raised to leave room for the answer.
    """
    if not config.enabled:
        return None, max_tokens
    budget = config.budget_tokens
    if budget is None:
        budget = min(DEFAULT_THINKING_BUDGET, max_tokens // 2)
    budget = max(MIN_THINKING_BUDGET, budget)
    if budget >= max_tokens:
        max_tokens = budget + ANSWER_HEADROOM
    return {"type": "enabled", "budget_tokens": budget}, max_tokens


def message_params(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages as wire dicts; consecutive same-role messages are merged into one.

    Messages left without any block (e.g. only another provider's thinking)
    are dropped. In a user message tool results always come first.
    """
    wire: list[dict[str, Any]] = []
    for message in messages:
        blocks = _blocks(message)
        if not blocks:
            continue
        if wire and wire[-1]["role"] == message.role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": message.role, "content": blocks})
    for entry in wire:
        if entry["role"] == "user":
            content = entry["content"]
            entry["content"] = [b for b in content if b["type"] == "tool_result"] + [
                b for b in content if b["type"] != "tool_result"
            ]
    return wire


def _blocks(message: Message) -> list[dict[str, Any]]:
    keep_thinking = message.role == "assistant" and message.provider == PROVIDER_NAME
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        block = _block(part, keep_thinking)
        if block is not None:
            blocks.append(block)
    return blocks


def _block(part: Part, keep_thinking: bool) -> dict[str, Any] | None:
    match part:
        case Text(text):
            return {"type": "text", "text": text} if text else None
        case Thinking(text, signature, redacted):
            if not keep_thinking or not signature:
                return None
            if redacted:
                return {"type": "redacted_thinking", "data": signature}
            return {"type": "thinking", "thinking": text, "signature": signature}
        case ToolCall(call_id, name, arguments):
            return {"type": "tool_use", "id": call_id, "name": name, "input": dict(arguments)}
        case ToolResult(call_id, _name, content, is_error, _cleared):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
            }
            if is_error:
                block["is_error"] = True
            return block
        case Image(media_type, data):
            source = {"type": "base64", "media_type": media_type, "data": data}
            return {"type": "image", "source": source}
    return None


def add_cache_markers(
    tools: list[dict[str, Any]],
    system: list[dict[str, Any]],
    messages: list[dict[str, Any]],
) -> int:
    """Put ``cache_control`` markers in place; returns how many were set (at most 4).

    One on the last system block (or the last tool when there is no system),
    one on the last block of the conversation that may carry one (never a
    thinking block; empty text blocks never exist here).
    """
    targets: list[dict[str, Any]] = []
    if system:
        targets.append(system[-1])
    elif tools:
        targets.append(tools[-1])
    tail = _last_cacheable(messages)
    if tail is not None:
        targets.append(tail)
    for block in targets[:MAX_CACHE_MARKERS]:
        block["cache_control"] = {"type": "ephemeral"}
    return min(len(targets), MAX_CACHE_MARKERS)


def _last_cacheable(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    for message in reversed(messages):
        blocks: list[dict[str, Any]] = message["content"]
        cacheable = [b for b in blocks if b["type"] not in _UNCACHEABLE]
        if cacheable:
            return cacheable[-1]
    return None
