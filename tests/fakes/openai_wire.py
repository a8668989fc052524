"""Chat Completions responses: the JSON completion and the streamed chunk sequence."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.outcome import ARGUMENT_PIECES, new_id, split_in, split_text
from tests.fakes.script import Reply
from tests.fakes.tokens import count_tokens

_TO_OPENAI_FINISH = {"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
_TO_OPENAI_FINISH |= {"stop_sequence": "stop", "refusal": "content_filter"}


def finish_reason(reply: Reply) -> str:
    """The OpenAI finish_reason for ``reply`` (Anthropic stop reasons are translated)."""
    if reply.stop_reason:
        return _TO_OPENAI_FINISH.get(reply.stop_reason, reply.stop_reason)
    return "tool_calls" if reply.tool_calls else "stop"


def tool_calls(reply: Reply) -> list[dict[str, Any]]:
    """The reply's calls as OpenAI ``tool_calls`` (ids generated when missing)."""
    return [
        {
            "id": call.id or new_id("call_"),
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for call in reply.tool_calls
    ]


def usage(
    prompt: int, cached: int, completion: int, reasoning: str, dialect: str
) -> dict[str, Any]:
    """A Chat Completions usage object (plus DeepSeek's cache hit/miss fields)."""
    result: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": count_tokens(reasoning) if reasoning else 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    if dialect == "deepseek":
        result["prompt_cache_hit_tokens"] = cached
        result["prompt_cache_miss_tokens"] = prompt - cached
    return result


def completion(
    meta: dict[str, Any], reply: Reply, calls: list[dict[str, Any]], use: dict[str, Any]
) -> dict[str, Any]:
    """A non-streaming ``chat.completion``; ``meta`` holds id, created, model."""
    msg: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if calls:
        msg["tool_calls"] = calls
    if reply.thinking is not None:
        msg["reasoning_content"] = reply.thinking
    choice = {"index": 0, "message": msg, "finish_reason": finish_reason(reply), "logprobs": None}
    return {**meta, "object": "chat.completion", "choices": [choice], "usage": use}


def chunks(
    meta: dict[str, Any],
    reply: Reply,
    calls: list[dict[str, Any]],
    use: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` list; ``use`` adds a final ``choices: []`` usage chunk."""
    out: list[dict[str, Any]] = []

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        body = {**meta, "object": "chat.completion.chunk"}
        body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
        if use is not None:
            body["usage"] = None
        out.append(body)

    chunk({"role": "assistant", "content": ""})
    for piece in split_text(reply.thinking, reply.chunk_size) if reply.thinking else []:
        chunk({"reasoning_content": piece})
    for piece in split_text(reply.text, reply.chunk_size) if reply.text else []:
        chunk({"content": piece})
    for index, call in enumerate(calls):
        function = call["function"]
        head = {"index": index, "id": call["id"], "type": "function"}
        chunk({"tool_calls": [{**head, "function": {"name": function["name"], "arguments": ""}}]})
        for piece in split_in(function["arguments"], ARGUMENT_PIECES):
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    chunk({}, finish_reason(reply))
    if use is not None:
        out.append({**meta, "object": "chat.completion.chunk", "choices": [], "usage": use})
    return out
