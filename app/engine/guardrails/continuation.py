"""Answers cut at the output-token limit: continue them instead of keeping them cut.

How a cut answer goes on depends on the server:

- **prefill** (Anthropic, thinking off, a model that accepts it): the partial text is sent as
  the final assistant message and the model writes on from there;
- **continue_final_message** (vLLM, SGLang): the same, with the server's flag;
- **larger limit** (everyone else, and a cut inside a tool call's arguments or in thinking):
  the partial answer is discarded and the request sent again with a 10% larger output limit
  (up to what the window allows).

At most ``max_continuations`` times; the joined text is stored as one assistant message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from lull.catalog.prefill import CONTINUE_FINAL_VENDORS, supports_prefill
from lull.model.messages import RAW_ARGUMENTS_KEY, Message, Part, Text, Thinking, ToolCall
from lull.model.provider import Completed, Vendor

ContinuationMode = Literal["prefill", "continue_final_message", "larger_limit"]
LIMIT_GROWTH = 1.1

CutKind = Literal["text", "tool_arguments", "no_text", "complete"]
"""Where a reply stopped at the limit: inside its text, inside a tool call's arguments,
before any text (thinking only), or after its last tool call (nothing is missing)."""


def continuation_mode(
    vendor: Vendor, model: str, *, thinking: bool, prefill_refused: bool
) -> ContinuationMode:
    """How a reply cut inside its text goes on with this server and model."""
    if vendor == "anthropic" and not thinking and not prefill_refused and supports_prefill(model):
        return "prefill"
    if vendor in CONTINUE_FINAL_VENDORS:
        return "continue_final_message"
    return "larger_limit"


def cut_kind(parts: Sequence[Part]) -> CutKind:
    """Where a reply that stopped at the output limit was cut."""
    calls = [p for p in parts if isinstance(p, ToolCall)]
    if any(RAW_ARGUMENTS_KEY in c.arguments for c in calls):
        return "tool_arguments"
    if calls and isinstance(parts[-1], ToolCall):
        return "complete"
    if not any(isinstance(p, Text) and p.text.strip() for p in parts):
        return "no_text"
    return "text"


def larger_limit(limit: int, continuations: int) -> int:
    """The output limit of the ``continuations``-th new try: 10% more each time."""
    return math.ceil(limit * LIMIT_GROWTH**continuations)


@dataclass
class HeldAnswer:
    """A cut answer being continued: its thinking and its text so far."""

    thinking: tuple[Part, ...] = ()
    text: str = ""

    @classmethod
    def start(cls, cut: Completed) -> HeldAnswer:
        """Hold the first cut reply."""
        thinking = tuple(p for p in cut.parts if isinstance(p, Thinking))
        text = "".join(p.text for p in cut.parts if isinstance(p, Text))
        return cls(thinking, text)

    def prefill(self, provider: str) -> Message:
        """The final assistant message the continuation request ends with (no trailing
        whitespace: Anthropic rejects it, and the model writes it again)."""
        return Message("assistant", (Text(self.text.rstrip()),), origin="model", provider=provider)

    def joined(self, reply: Completed) -> Completed:
        """``reply`` (a continuation) as the whole answer: this answer's thinking, the
        text so far followed by the reply's text, then the reply's tool calls."""
        added = "".join(p.text for p in reply.parts if isinstance(p, Text))
        text = self.text.rstrip() + added
        calls = tuple(p for p in reply.parts if isinstance(p, ToolCall))
        parts: tuple[Part, ...] = (*self.thinking, Text(text), *calls)
        return replace(reply, parts=parts)

    def hold(self, joined: Completed) -> None:
        """The joined answer was cut again: hold it for one more continuation."""
        self.text = "".join(p.text for p in joined.parts if isinstance(p, Text))
