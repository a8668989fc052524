"""An in-process provider driven by a list of replies: for engine tests and ``lull --demo``.

:class:`ScriptedProvider` speaks the same contract as the SDK providers (deltas, then one
:class:`Completed`; failures as :class:`ProviderError`) without any network or SDK. It
records every :class:`ModelRequest` it is sent, serves the scripted replies in order and,
when they run out, a default responder (an echo; :func:`demo_reply` lists files on request).

Usage is estimated locally (characters / 4) and prompt caching is simulated by prefix: the
longest run of leading blocks (the fixed prefix, then each message) that an earlier request
already sent is reported as read from the cache, the rest as written to it (or all as
uncached input when the request turns caching off), so cost and cache figures move as they
would against a real provider.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lull.context.estimate import estimate_message_tokens, estimate_tokens
from lull.model.messages import Message, Part, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import (
    Completed,
    ModelRequest,
    ProviderError,
    Retrying,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    Usage,
)

PROVIDER_NAME = "scripted"
DEFAULT_MODEL = "scripted-model"
CHUNK_CHARS = 16
SIGNATURE = "scripted-signature"


@dataclass(frozen=True)
class ScriptedCall:
    """One tool call the scripted model makes (``id`` is generated when empty)."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""


@dataclass(frozen=True)
class ScriptedReply:
    """One model answer.

    ``stop_reason`` defaults to "tool_use" with calls and "end_turn" without; ``error``
    is raised instead of answering; ``cut_after`` raises a "stream_cut" error after that
    many deltas; ``output_tokens`` overrides the estimate; ``delay`` (seconds) is slept
    before each delta, for tests that interrupt a stream. ``retrying`` is yielded first
    (waits a real provider announces before a retry; nothing is slept), and
    ``usage_reported`` False answers like a server that reports no usage.
    """

    text: str = ""
    thinking: str | None = None
    tool_calls: Sequence[ScriptedCall] = ()
    stop_reason: StopReason | None = None
    error: ProviderError | None = None
    cut_after: int | None = None
    output_tokens: int | None = None
    delay: float = 0.0
    retrying: Sequence[Retrying] = ()
    usage_reported: bool = True


Responder = Callable[[ModelRequest], ScriptedReply]


def last_user_text(request: ModelRequest) -> str:
    """The text of the newest user message that has any (tool results are skipped)."""
    for message in reversed(request.messages):
        if message.role == "user" and message.text:
            return message.text
    return ""


def echo_reply(request: ModelRequest) -> ScriptedReply:
    """The default answer: repeat the user's last message."""
    return ScriptedReply(text=f"(scripted) You said: {last_user_text(request)}")


def demo_reply(request: ModelRequest) -> ScriptedReply:
    """``lull --demo``: "list files" lists the workspace with a tool call and summarises the
    result; anything else is echoed."""
    last = request.messages[-1] if request.messages else None
    results = last.tool_results if last is not None else ()
    if results:
        return ScriptedReply(text=f"(demo) {results[0].name} says:\n{results[0].content.strip()}")
    if "list files" in last_user_text(request).lower():
        return ScriptedReply(
            text="Let me look at the directory.",
            tool_calls=(ScriptedCall("list_directory", {"path": "."}),),
        )
    reply = echo_reply(request)
    return ScriptedReply(text=reply.text.replace("(scripted)", "(demo)", 1))


class ScriptedProvider:
    """A :class:`~lull.model.provider.Provider` that answers from a script, in process."""

    name = PROVIDER_NAME

    def __init__(
        self,
        replies: Iterable[ScriptedReply] = (),
        *,
        model: str = DEFAULT_MODEL,
        respond: Responder = echo_reply,
    ) -> None:
        self.model = model
        self.respond = respond
        self.replies: list[ScriptedReply] = list(replies)
        self.requests: list[ModelRequest] = []
        self._seen: list[list[tuple[str, int]]] = []
        self._calls = 0
        self.closed = False

    def script(self, *replies: ScriptedReply) -> None:
        """Queue more replies (served before the default responder)."""
        self.replies.extend(replies)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Answer ``request`` with the next reply (see the Provider contract)."""
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else self.respond(request)
        return self._serve(request, reply)

    async def aclose(self) -> None:
        """Nothing to release; noted for tests."""
        self.closed = True

    async def _serve(
        self, request: ModelRequest, reply: ScriptedReply
    ) -> AsyncIterator[StreamEvent]:
        for wait in reply.retrying:
            yield wait
        if reply.error is not None:
            raise reply.error
        parts = self._parts(reply)
        for sent, delta in enumerate(_deltas(parts)):
            if reply.cut_after is not None and sent >= reply.cut_after:
                raise ProviderError("stream_cut", "the scripted stream was cut (as scripted)")
            if reply.delay:
                await asyncio.sleep(reply.delay)
            yield delta
        stop: StopReason = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
        yield Completed(parts, self._usage(request, reply, parts), stop, self.model)

    def _parts(self, reply: ScriptedReply) -> tuple[Part, ...]:
        parts: list[Part] = []
        if reply.thinking:
            parts.append(Thinking(reply.thinking, SIGNATURE))
        if reply.text:
            parts.append(Text(reply.text))
        for call in reply.tool_calls:
            self._calls += 1
            parts.append(
                ToolCall(call.id or f"call_{self._calls}", call.name, dict(call.arguments))
            )
        return tuple(parts)

    def _usage(self, request: ModelRequest, reply: ScriptedReply, parts: Sequence[Part]) -> Usage:
        blocks = _blocks(request)
        whole = sum(tokens for _, tokens in blocks)
        cached = max((_shared(blocks, earlier) for earlier in self._seen), default=0)
        self._seen.append(blocks)
        if not reply.usage_reported:
            return Usage(reported=False)
        output = reply.output_tokens
        if output is None:
            output = max(1, estimate_message_tokens(Message("assistant", tuple(parts))))
        if not request.prompt_caching:
            return Usage(input=whole, output=output)
        return Usage(input=0, output=output, cache_read=cached, cache_write=whole - cached)


def _deltas(parts: Sequence[Part]) -> Iterable[StreamEvent]:
    for part in parts:
        match part:
            case Thinking(text):
                yield from (
                    ThinkingDelta(text[i : i + CHUNK_CHARS])
                    for i in range(0, len(text), CHUNK_CHARS)
                )
            case Text(text):
                yield from (
                    TextDelta(text[i : i + CHUNK_CHARS]) for i in range(0, len(text), CHUNK_CHARS)
                )
            case ToolCall(call_id, name):
                yield ToolCallStarted(call_id, name)
            case _:
                pass


def _blocks(request: ModelRequest) -> list[tuple[str, int]]:
    """(digest, tokens) of the request's cacheable blocks: the fixed prefix, then each message."""
    prefix = json.dumps(
        [request.model, request.system, request.environment, [t.name for t in request.tools]],
        ensure_ascii=False,
    )
    blocks = [(_digest(prefix), estimate_tokens(prefix) + 100 * len(request.tools))]
    for message in request.messages:
        text = json.dumps([message.role, [_part_key(p) for p in message.parts]], ensure_ascii=False)
        blocks.append((_digest(text), max(1, estimate_message_tokens(message))))
    return blocks


def _part_key(part: Part) -> Any:
    match part:
        case ToolResult(call_id, name, content, is_error):
            return ["result", call_id, name, content, is_error]
        case ToolCall(call_id, name, arguments):
            return ["call", call_id, name, dict(arguments)]
        case _:
            return [type(part).__name__, repr(part)]


def _shared(blocks: Sequence[tuple[str, int]], earlier: Sequence[tuple[str, int]]) -> int:
    """Tokens of the longest common run of leading blocks."""
    total = 0
    for (digest, tokens), (before, _) in zip(blocks, earlier, strict=False):
        if digest != before:
            break
        total += tokens
    return total


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
