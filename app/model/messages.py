"""Provider-neutral conversation messages.

A message is a role plus a tuple of typed parts. Providers convert these to and
from their wire formats at the edge (``app/providers``); nothing else in lull
knows what an Anthropic block or an OpenAI chunk looks like.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

Role = Literal["user", "assistant"]
Origin = Literal["user", "model", "tool", "synthetic", "summary"]

CLEARED_TOOL_RESULT = "[Old tool result content cleared]"
"""What a cleared result read before it named its call (sessions saved by older versions)."""


def cleared_result_text(call_id: str) -> str:
    """What a cleared tool result reads: the sentinel names the call, so the model can ask
    the ``recall`` tool for the original output."""
    return f"[Old tool result content cleared \u2014 recall id {call_id}]"


def is_cleared_text(content: str) -> bool:
    """True for a cleared-result sentinel (with or without a recall id)."""
    return content.startswith(CLEARED_TOOL_RESULT[:-1])


def cleared_image_text(media_type: str) -> str:
    """What an old inline image is replaced with when it is cleared (the reference's text)."""
    return f"[Old inline media cleared: {media_type}]"


# A tool call whose arguments were not valid JSON keeps the raw text under this key.
RAW_ARGUMENTS_KEY = "_raw"


@dataclass(frozen=True, slots=True)
class Text:
    """Plain text written by the user or the model."""

    text: str


@dataclass(frozen=True, slots=True)
class Thinking:
    """Model reasoning.

    ``signature`` is the provider's opaque integrity token (Anthropic); it must
    be sent back byte-identical. A redacted block keeps its opaque payload in
    ``signature`` and has empty ``text``.
    """

    text: str
    signature: str = ""
    redacted: bool = False


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A request by the model to run one tool."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one tool call, sent back to the model."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    cleared: bool = False


@dataclass(frozen=True, slots=True)
class Image:
    """An inline image (base64 data)."""

    media_type: str
    data: str


Part = Text | Thinking | ToolCall | ToolResult | Image


def new_id(prefix: str = "m") -> str:
    """A short unique id for messages, sessions and edits."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation turn as the engine stores it.

    ``provider`` names who produced an assistant message ("anthropic",
    "openai"); thinking from one provider is never sent to another.
    """

    role: Role
    parts: tuple[Part, ...]
    id: str = field(default_factory=new_id)
    created_at: float = field(default_factory=time.time)
    origin: Origin = "user"
    provider: str | None = None

    @property
    def text(self) -> str:
        """All text parts joined (what a person would read)."""
        return "".join(p.text for p in self.parts if isinstance(p, Text))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls this message makes."""
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        """The tool results this message carries."""
        return tuple(p for p in self.parts if isinstance(p, ToolResult))

    @property
    def is_user_prompt(self) -> bool:
        """True for a message typed by the user (not a tool-result carrier)."""
        return self.role == "user" and not self.tool_results

    def replace_parts(self, parts: tuple[Part, ...]) -> Message:
        """A copy of this message with other parts (same id and metadata)."""
        return Message(self.role, parts, self.id, self.created_at, self.origin, self.provider)


def user_text(text: str) -> Message:
    """A user message holding one text part."""
    return Message("user", (Text(text),), origin="user")


def iter_tool_calls(messages: list[Message] | tuple[Message, ...]) -> Iterator[ToolCall]:
    """Every tool call in order of appearance."""
    for message in messages:
        yield from message.tool_calls


def unanswered_calls(messages: list[Message] | tuple[Message, ...]) -> list[ToolCall]:
    """Tool calls of the last assistant message that have no result after it."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role != "assistant":
            continue
        answered = {r.call_id for m in messages[index + 1 :] for r in m.tool_results}
        return [c for c in message.tool_calls if c.id not in answered]
    return []


# --- serialisation -------------------------------------------------------------------------


def part_to_dict(part: Part) -> dict[str, Any]:
    """A JSON-ready dict for one part, with a ``type`` discriminator."""
    match part:
        case Text(text):
            return {"type": "text", "text": text}
        case Thinking(text, signature, redacted):
            return {"type": "thinking", "text": text, "signature": signature, "redacted": redacted}
        case ToolCall(call_id, name, arguments):
            return {"type": "tool_call", "id": call_id, "name": name, "arguments": dict(arguments)}
        case ToolResult(call_id, name, content, is_error, cleared):
            return {
                "type": "tool_result",
                "call_id": call_id,
                "name": name,
                "content": content,
                "is_error": is_error,
                "cleared": cleared,
            }
        case Image(media_type, data):
            return {"type": "image", "media_type": media_type, "data": data}
        case _:
            assert_never(part)


def part_from_dict(data: Mapping[str, Any]) -> Part:
    """The part a ``part_to_dict`` dict stands for."""
    kind = data["type"]
    if kind == "text":
        return Text(str(data["text"]))
    if kind == "thinking":
        return Thinking(str(data["text"]), str(data.get("signature", "")), bool(data["redacted"]))
    if kind == "tool_call":
        return ToolCall(str(data["id"]), str(data["name"]), dict(data["arguments"]))
    if kind == "tool_result":
        return ToolResult(
            str(data["call_id"]),
            str(data["name"]),
            str(data["content"]),
            bool(data.get("is_error", False)),
            bool(data.get("cleared", False)),
        )
    if kind == "image":
        return Image(str(data["media_type"]), str(data["data"]))
    raise ValueError(f"unknown part type {kind!r}")


def message_to_dict(message: Message) -> dict[str, Any]:
    """A JSON-ready dict for one message."""
    return {
        "id": message.id,
        "role": message.role,
        "created_at": message.created_at,
        "origin": message.origin,
        "provider": message.provider,
        "parts": [part_to_dict(p) for p in message.parts],
    }


def message_from_dict(data: Mapping[str, Any]) -> Message:
    """The message a ``message_to_dict`` dict stands for."""
    role = data["role"]
    if role not in ("user", "assistant"):
        raise ValueError(f"unknown role {role!r}")
    # positional, and a list comprehension: a resume makes thousands of these
    return Message(
        role,
        tuple([part_from_dict(p) for p in data["parts"]]),
        str(data["id"]),
        float(data["created_at"]),
        data.get("origin", "user"),
        data.get("provider"),
    )
