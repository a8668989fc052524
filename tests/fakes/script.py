"""What the fake model says: scripted replies, tool calls, and the default echo/demo responders."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.server_tools import ServerSearch
from tests.fakes.tokens import count_tokens

Respond = Callable[[dict[str, Any]], "Reply"]

HOLD_SECONDS = 120.0
"""The longest a ``Reply(hold=…)`` waits for its event (a failed test never sets it)."""


@dataclass
class ToolUse:
    """One tool call the fake model makes; ``id`` is generated (toolu_…/call_…) when None."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None


@dataclass
class Reply:
    """One model turn served to whichever API asks next.

    ``thinking`` becomes a signed Anthropic thinking block or OpenAI ``reasoning_content``;
    ``redacted_thinking`` adds an Anthropic redacted_thinking block; several ``tool_calls`` are
    parallel calls; ``chunk_size`` is characters per streamed text delta; ``respond`` (if set)
    computes the real reply from the request body at serving time; ``chunk_delay`` (seconds)
    is slept between streamed frames, for tests that interrupt a stream mid-way;
    ``first_delay`` (seconds) is slept after the stream's headers, before its first frame (a
    local model reading a long prompt on a CPU answers nothing for 10-80 s); ``hold`` (an
    event) keeps a streamed reply after its headers until the test sets it (at most
    :data:`HOLD_SECONDS`), then ``first_delay`` applies: a wait that lasts exactly until the test
    has seen what it waits for, however busy the machine; ``web_search`` (Anthropic) runs the
    server-side web search first (``tests/fakes/server_tools.py``).
    """

    text: str = ""
    thinking: str | None = None
    redacted_thinking: bool = False
    tool_calls: list[ToolUse] = field(default_factory=list)
    stop_reason: str | None = None
    output_tokens: int | None = None
    chunk_size: int = 8
    respond: Respond | None = None
    chunk_delay: float = 0.0
    first_delay: float = 0.0
    hold: threading.Event | None = None
    web_search: ServerSearch | None = None

    def resolve(self, body: dict[str, Any]) -> Reply:
        """The reply to serve for ``body``: the result of ``respond`` if set, else self."""
        if self.respond is None:
            return self
        result = self.respond(body)
        if not isinstance(result, Reply):
            raise TypeError(f"Reply.respond must return a Reply, got {type(result).__name__}")
        return result


def output_tokens(reply: Reply) -> int:
    """Output tokens reported for ``reply`` (its explicit count, else ceil(chars/4))."""
    if reply.output_tokens is not None:
        return reply.output_tokens
    total = count_tokens(reply.text) + count_tokens(reply.thinking or "")
    total += sum(count_tokens(call.arguments) for call in reply.tool_calls)
    return max(1, total)


def reply_from_dict(data: Mapping[str, Any], where: str = "reply") -> Reply:
    """Build a Reply from a JSON dict ({"text", "thinking", "tool_calls": [{name, arguments}]…})."""
    known = {"text", "thinking", "redacted_thinking", "tool_calls", "stop_reason"}
    known |= {"output_tokens", "chunk_size", "chunk_delay", "first_delay"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; expected some of {sorted(known)}")
    calls = []
    for i, raw in enumerate(data.get("tool_calls") or []):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            raise ValueError(f"{where}.tool_calls[{i}]: expected an object with a string 'name'")
        args = raw.get("arguments", {})
        if not isinstance(args, dict):
            raise ValueError(f"{where}.tool_calls[{i}].arguments: expected an object")
        calls.append(ToolUse(raw["name"], args, raw.get("id")))
    return Reply(
        text=str(data.get("text", "")),
        thinking=data.get("thinking"),
        redacted_thinking=bool(data.get("redacted_thinking", False)),
        tool_calls=calls,
        stop_reason=data.get("stop_reason"),
        output_tokens=data.get("output_tokens"),
        chunk_size=int(data.get("chunk_size", 8)),
        chunk_delay=float(data.get("chunk_delay", 0.0)),
        first_delay=float(data.get("first_delay", 0.0)),
    )


def text_of(content: Any) -> str:
    """Plain text of a message content (string, or list of text blocks/parts)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str))


def last_user_text(body: Mapping[str, Any]) -> str:
    """Text of the latest user message that has text (either API's shape; tool results skipped)."""
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            text = text_of(message.get("content"))
            if text:
                return text
    return ""


def last_tool_result(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """(tool call id, result text) if the request ends with a tool result, else None."""
    messages = body.get("messages") or []
    if not messages or not isinstance(messages[-1], dict):
        return None
    last = messages[-1]
    if last.get("role") == "tool":
        return str(last.get("tool_call_id", "")), text_of(last.get("content"))
    content = last.get("content")
    if last.get("role") == "user" and isinstance(content, list):
        for block in reversed(content):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                return str(block.get("tool_use_id", "")), text_of(block.get("content"))
    return None


def echo(body: dict[str, Any]) -> Reply:
    """The default responder: ``(fake) You said: <last user text>``."""
    return Reply(text=f"(fake) You said: {last_user_text(body)}")


# How other clients list a directory, for the same demo round (lull's tool first).
LISTING_CALLS = (
    ("list_directory", {"path": "."}),
    ("LS", {"path": "."}),
    ("Glob", {"pattern": "*"}),
    ("Bash", {"command": "ls"}),
)


def tool_names(body: Mapping[str, Any]) -> set[str]:
    """Names of the tools a request offers (either API's shape)."""
    names = set()
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, dict) else tool.get("name")
            if isinstance(name, str):
                names.add(name)
    return names


def demo(body: dict[str, Any]) -> Reply:
    """Echo, except "list files" asks for a directory listing (list_directory, or the tool a
    client without it offers: LS, Glob, Bash) and then summarises its result."""
    result = last_tool_result(body)
    if result is not None:
        lines = [line for line in result[1].splitlines() if line.strip()]
        return Reply(text=f"(fake) The directory has {len(lines)} entries:\n" + "\n".join(lines))
    if "list files" in last_user_text(body).lower():
        offered = tool_names(body)
        name, arguments = next(
            (call for call in LISTING_CALLS if call[0] in offered), LISTING_CALLS[0]
        )
        return Reply(text="Let me look at the directory.", tool_calls=[ToolUse(name, arguments)])
    return echo(body)


def echo_reply() -> Reply:
    """A fresh default reply that echoes the user."""
    return Reply(respond=echo)


def demo_reply() -> Reply:
    """A default reply implementing the ``--demo`` rule."""
    return Reply(respond=demo)
