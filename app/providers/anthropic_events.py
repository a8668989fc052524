"""Anthropic raw stream events -> neutral deltas and the final assistant parts.

Works on the SDK's event objects by attribute (``event.type``, ``event.delta``
…), so it needs no SDK import and tests can feed it the SDK's own models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lull.model.messages import Part, Text, Thinking, ToolCall
from lull.model.provider import (
    Completed,
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
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}


@dataclass
class _Block:
    """One content block being assembled from its deltas."""

    kind: str
    text: list[str] = field(default_factory=list)
    signature: str = ""
    call_id: str = ""
    name: str = ""

    def part(self) -> Part | None:
        joined = "".join(self.text)
        if self.kind == "text":
            return Text(joined) if joined else None
        if self.kind == "thinking":
            return Thinking(joined, self.signature)
        if self.kind == "redacted_thinking":
            return Thinking("", self.signature, redacted=True)
        if self.kind == "tool_use":
            return ToolCall(self.call_id, self.name, parse_arguments(joined))
        return None


@dataclass
class AnthropicStreamState:
    """Accumulates one streamed response; :meth:`feed` each event, then :meth:`completed`."""

    model: str = ""
    blocks: dict[int, _Block] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    stop_reason: str | None = None
    finished: bool = False

    def feed(self, event: Any) -> list[StreamEvent]:
        """Take one raw event; return the deltas it produces for the front end."""
        kind = getattr(event, "type", "")
        if kind == "message_start":
            message = event.message
            self.model = str(getattr(message, "model", "") or "")
            self._take_usage(getattr(message, "usage", None))
        elif kind == "content_block_start":
            return self._start_block(int(event.index), event.content_block)
        elif kind == "content_block_delta":
            return self._delta(int(event.index), event.delta)
        elif kind == "message_delta":
            reason = getattr(event.delta, "stop_reason", None)
            if reason:
                self.stop_reason = str(reason)
            self._take_usage(getattr(event, "usage", None))
        elif kind == "message_stop":
            self.finished = True
        return []

    def completed(self) -> Completed:
        """The final event; raises ProviderError("stream_cut") if message_stop never came."""
        if not self.finished:
            raise stream_cut_error()
        parts = [self.blocks[i].part() for i in sorted(self.blocks)]
        usage = Usage(
            input=self.usage.get("input_tokens", 0),
            output=self.usage.get("output_tokens", 0),
            cache_read=self.usage.get("cache_read_input_tokens", 0),
            cache_write=self.usage.get("cache_creation_input_tokens", 0),
            reasoning=self.usage.get("thinking_tokens", 0),
            cache_write_1h=self.usage.get("ephemeral_1h_input_tokens", 0),
            reported=bool(self.usage),
        )
        stop = _STOP_REASONS.get(self.stop_reason or "", "other")
        return Completed(tuple(p for p in parts if p is not None), usage, stop, self.model)

    def _start_block(self, index: int, block: Any) -> list[StreamEvent]:
        kind = str(getattr(block, "type", ""))
        entry = _Block(kind)
        self.blocks[index] = entry
        events: list[StreamEvent] = []
        if kind == "text":
            entry.text.append(str(block.text or ""))
            if entry.text[0]:
                events.append(TextDelta(entry.text[0]))
        elif kind == "thinking":
            entry.text.append(str(block.thinking or ""))
            entry.signature = str(getattr(block, "signature", "") or "")
            if entry.text[0]:
                events.append(ThinkingDelta(entry.text[0]))
        elif kind == "redacted_thinking":
            entry.signature = str(block.data)
        elif kind == "tool_use":
            entry.call_id, entry.name = str(block.id), str(block.name)
            events.append(ToolCallStarted(entry.call_id, entry.name))
        return events

    def _delta(self, index: int, delta: Any) -> list[StreamEvent]:
        entry = self.blocks.get(index)
        if entry is None:
            return []
        kind = getattr(delta, "type", "")
        if kind == "text_delta":
            entry.text.append(str(delta.text))
            return [TextDelta(str(delta.text))]
        if kind == "thinking_delta":
            entry.text.append(str(delta.thinking))
            return [ThinkingDelta(str(delta.thinking))]
        if kind == "signature_delta":
            entry.signature += str(delta.signature)
        elif kind == "input_json_delta":
            entry.text.append(str(delta.partial_json))
        return []

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        names = (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        )
        for name in names:
            value = getattr(usage, name, None)
            if value is not None:
                self.usage[name] = int(value)
        details = getattr(usage, "output_tokens_details", None)
        thinking = getattr(details, "thinking_tokens", None)
        if thinking is not None:
            self.usage["thinking_tokens"] = int(thinking)
        creation = getattr(usage, "cache_creation", None)
        one_hour = getattr(creation, "ephemeral_1h_input_tokens", None)
        if one_hour is not None:
            self.usage["ephemeral_1h_input_tokens"] = int(one_hour)
