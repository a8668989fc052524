"""OpenAI Chat Completions stream chunks -> neutral deltas and the final assistant parts.

Works on the SDK's chunk objects by attribute, so it needs no SDK import.
Reasoning arrives as ``delta.reasoning_content`` (DeepSeek, Kimi, Qwen, SGLang)
or ``delta.reasoning`` (vLLM >= 0.11); both become one Thinking part.

The SDK swallows the terminating ``data: [DONE]``, so a stream counts as
complete when a choice reported its ``finish_reason``; a stream that ends
before that was cut. Servers without ``stream_options`` support send no usage:
the Completed's usage then says it was not reported (``Usage.reported``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from lull.model.messages import Part, Text, Thinking, ToolCall
from lull.model.provider import (
    Completed,
    ProviderError,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    Usage,
)
from lull.providers.arguments import parse_arguments
from lull.providers.errors import stream_cut_error

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


@dataclass
class _Call:
    """One tool call being assembled from fragments sharing an index."""

    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    announced: bool = False


@dataclass
class OpenAIStreamState:
    """Accumulates one streamed completion; :meth:`feed` each chunk, then :meth:`completed`."""

    model: str = ""
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _Call] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=lambda: Usage(reported=False))

    def feed(self, chunk: Any) -> list[StreamEvent]:
        """Take one chunk; return the deltas it produces for the front end."""
        self.model = str(getattr(chunk, "model", "") or self.model)
        if getattr(chunk, "usage", None) is not None:
            self.usage = usage_from(chunk.usage)
        events: list[StreamEvent] = []
        for choice in getattr(chunk, "choices", None) or ():
            if getattr(choice, "index", 0) not in (0, None):
                continue
            if getattr(chunk, "usage", None) is None and getattr(choice, "usage", None):
                self.usage = usage_from(choice.usage)  # Moonshot puts it on the choice
            if choice.delta is not None:
                events.extend(self._delta(choice.delta))
            if choice.finish_reason:
                self.finish_reason = str(choice.finish_reason)
        return events

    def completed(self) -> Completed:
        """The final event; raises ProviderError("stream_cut") if no finish_reason came
        ("empty_stream" when the stream held nothing but a usage report)."""
        if self.finish_reason is None:
            nothing = not (self.text or self.reasoning or self.calls)
            if nothing and self.usage.reported:
                raise ProviderError(
                    "empty_stream",
                    f"the server's stream held only a usage report ({self.usage.prompt_tokens:,} "
                    "prompt tokens): no answer and no finish reason",
                )
            raise stream_cut_error()
        parts: list[Part] = []
        if self.reasoning:
            parts.append(Thinking("".join(self.reasoning)))
        if self.text and "".join(self.text):
            parts.append(Text("".join(self.text)))
        for index in sorted(self.calls):
            call = self.calls[index]
            call_id = call.call_id or _new_call_id()
            parts.append(ToolCall(call_id, call.name, parse_arguments("".join(call.arguments))))
        stop = _STOP_REASONS.get(self.finish_reason, "other")
        if self.calls and stop in ("end_turn", "other"):
            stop = "tool_use"  # some servers say "stop" even when they called tools
        return Completed(tuple(parts), self.usage, stop, self.model)

    def _delta(self, delta: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        reasoning = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
        if isinstance(reasoning, str) and reasoning:
            self.reasoning.append(reasoning)
            events.append(ThinkingDelta(reasoning))
        content = getattr(delta, "content", None)
        if isinstance(content, str) and content:
            self.text.append(content)
            events.append(TextDelta(content))
        for fragment in getattr(delta, "tool_calls", None) or ():
            started = self._call_fragment(fragment)
            if started is not None:
                events.append(started)
        return events

    def _call_fragment(self, fragment: Any) -> ToolCallStarted | None:
        index = fragment.index if fragment.index is not None else max(self.calls, default=0)
        call = self.calls.setdefault(int(index), _Call())
        if fragment.id:
            call.call_id = call.call_id or str(fragment.id)
        function = getattr(fragment, "function", None)
        if function is not None:
            if function.name and not call.name:
                call.name = str(function.name)
            if function.arguments:
                call.arguments.append(str(function.arguments))
        if call.name and not call.announced:
            call.announced = True
            call.call_id = call.call_id or _new_call_id()
            return ToolCallStarted(call.call_id, call.name)
        return None


def usage_from(usage: Any) -> Usage:
    """Neutral usage from a Chat Completions ``usage`` object, whichever vendor sent it.

    Cache reads: ``prompt_tokens_details.cached_tokens`` (OpenAI), else
    ``prompt_cache_hit_tokens`` (DeepSeek), else a top-level ``cached_tokens``
    (Kimi/Moonshot). Cache writes: ``prompt_tokens_details.cache_write_tokens``
    (GPT-5.6+). DeepSeek's ``prompt_cache_miss_tokens`` gives the uncached part directly.
    """
    details = _field(usage, "prompt_tokens_details")
    hit = _int(usage, "prompt_cache_hit_tokens")
    miss = _int(usage, "prompt_cache_miss_tokens")
    prompt = _int(usage, "prompt_tokens")
    cached = _int(details, "cached_tokens") or hit or _int(usage, "cached_tokens")
    written = _int(details, "cache_write_tokens")
    uncached = prompt - cached - written
    if miss and not written:
        uncached = miss
    output_details = _field(usage, "completion_tokens_details")
    return Usage(
        input=max(uncached, 0),
        output=_int(usage, "completion_tokens"),
        cache_read=cached,
        cache_write=written,
        reasoning=_int(output_details, "reasoning_tokens"),
    )


def _field(source: Any, name: str) -> Any:
    """An attribute of an SDK object, or a key of a plain dict (vendor extras stay dicts)."""
    return source.get(name) if isinstance(source, dict) else getattr(source, name, None)


def _int(source: Any, name: str) -> int:
    """An integer field of ``source`` (see :func:`_field`); 0 if absent or not a number."""
    value = _field(source, name)
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"
