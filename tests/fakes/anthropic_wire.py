"""Anthropic Messages responses: content blocks, the SSE event sequence, the JSON message."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.outcome import ARGUMENT_PIECES, new_id, split_in, split_text
from tests.fakes.script import Reply
from tests.fakes.signing import Signer

_TO_ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def stop_reason(reply: Reply) -> str:
    """The Anthropic stop_reason for ``reply`` (OpenAI finish reasons are translated)."""
    if reply.stop_reason:
        return _TO_ANTHROPIC_STOP.get(reply.stop_reason, reply.stop_reason)
    return "tool_use" if reply.tool_calls else "end_turn"


def content_blocks(reply: Reply, signer: Signer, auto_thinking: bool) -> list[dict[str, Any]]:
    """The assistant content for ``reply``; ``auto_thinking`` adds an empty signed thinking block
    when the reply calls tools without thinking (a real model always thinks when enabled)."""
    blocks: list[dict[str, Any]] = []
    thinking = reply.thinking
    if thinking is None and auto_thinking and reply.tool_calls and not reply.redacted_thinking:
        thinking = ""
    if thinking is not None:
        signature = signer.sign_thinking(thinking)
        blocks.append({"type": "thinking", "thinking": thinking, "signature": signature})
    if reply.redacted_thinking:
        blocks.append({"type": "redacted_thinking", "data": signer.issue_redacted()})
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        call_id = call.id or new_id("toolu_01")
        blocks.append(
            {"type": "tool_use", "id": call_id, "name": call.name, "input": call.arguments}
        )
    return blocks


def message(
    msg_id: str, model: str, content: list[dict[str, Any]], stop: str | None, usage: dict[str, Any]
) -> dict[str, Any]:
    """A complete (non-streaming) Message object."""
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }


def _block_events(
    index: int, block: dict[str, Any], chunk: int
) -> list[tuple[str, dict[str, Any]]]:
    kind = block["type"]
    events: list[tuple[str, dict[str, Any]]] = []

    def delta(body: dict[str, Any]) -> None:
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": body})
        )

    start: dict[str, Any] = dict(block)
    if kind == "text":
        start = {"type": "text", "text": ""}
        if block.get("citations"):
            start["citations"] = []
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
    elif kind in ("tool_use", "server_tool_use"):
        start = {**block, "input": {}}
    events.append(
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
    )
    if kind == "text":
        for citation in block.get("citations") or []:
            delta({"type": "citations_delta", "citation": citation})
        for piece in split_text(block["text"], chunk):
            delta({"type": "text_delta", "text": piece})
    elif kind == "thinking":
        for piece in split_text(block["thinking"], chunk) if block["thinking"] else []:
            delta({"type": "thinking_delta", "thinking": piece})
        delta({"type": "signature_delta", "signature": block["signature"]})
    elif kind in ("tool_use", "server_tool_use"):
        delta({"type": "input_json_delta", "partial_json": ""})
        for piece in split_in(json.dumps(block["input"]), ARGUMENT_PIECES):
            delta({"type": "input_json_delta", "partial_json": piece})
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def stream_events(full: dict[str, Any], chunk: int) -> list[tuple[str, dict[str, Any]]]:
    """The SSE (event name, data) sequence that streams the Message ``full``."""
    usage = full["usage"]
    start_usage = {**usage, "output_tokens": 1}
    start = {**full, "content": [], "stop_reason": None, "usage": start_usage}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(full["content"]):
        events.extend(_block_events(index, block, chunk))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": full["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events
