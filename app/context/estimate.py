"""A cheap, dependency-free token estimate (characters / 4, rounded up).

Good enough for planning decisions and "~N tokens" notices; exact counting
with a real tokenizer lives in ``app/context/tokens.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import assert_never

from lull.model.messages import Image, Message, Part, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ToolSpec

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1600


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ceil(len / 4); 0 for the empty string."""
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_spec_tokens(spec: ToolSpec) -> int:
    """Estimated tokens one tool definition costs in every request (name, description and
    parameters as JSON)."""
    content = {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
    return estimate_tokens(json.dumps(content, sort_keys=True, ensure_ascii=False, default=str))


def estimate_part_tokens(part: Part) -> int:
    """Estimated tokens one message part costs when sent to a model.

    Thinking counts its text (a redacted block counts its opaque payload);
    tool calls count id, name and JSON arguments; tool results id, name and
    content; an image counts a flat :data:`IMAGE_TOKENS`.
    """
    match part:
        case Text(text):
            return estimate_tokens(text)
        case Thinking(text, signature, redacted):
            return estimate_tokens(signature if redacted else text)
        case ToolCall(call_id, name, arguments):
            args = json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False, default=str)
            return estimate_tokens(call_id) + estimate_tokens(name) + estimate_tokens(args)
        case ToolResult(call_id, name, content):
            return estimate_tokens(call_id) + estimate_tokens(name) + estimate_tokens(content)
        case Image():
            return IMAGE_TOKENS
        case _:
            assert_never(part)


def estimate_message_tokens(m: Message) -> int:
    """Estimated tokens of one message: the sum over its parts."""
    return sum(estimate_part_tokens(p) for p in m.parts)


def estimate_messages_tokens(messages: Iterable[Message]) -> int:
    """Estimated tokens of a whole message list (a view or a transcript)."""
    return sum(estimate_message_tokens(m) for m in messages)
