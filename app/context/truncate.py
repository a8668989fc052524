"""Oversized tool results: truncated for the model, full text kept elsewhere.

Tools already cap their output in characters (``tools.maxOutputChars``); this is
the model-facing guard in tokens (``context.toolOutput.maxTokens``). It runs on
the view right before a request: a result over the limit is sent as its head
and tail with a marker saying where the full text is (the engine saves it to a
file: ``app/engine/fitting/outputs.py``; this module does no I/O itself). The
transcript (and the session file) keep the original, and the replacement is a
pure function of the result, so every request sends the same bytes (the
prompt cache is not disturbed) and a resumed session sends what it sent before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lull.context.tokens import TokenCounter
from lull.model.messages import Message, Part, ToolResult, is_cleared_text

log = logging.getLogger("lull.truncate")

HEAD_SHARE = 0.6
MARKER_TOKENS = 80  # room kept for the marker line
_MIN_KEEP_TOKENS = 32

SaveFullText = Callable[[str, str], str]
"""Keeps the full text of a truncated result (call id, text) and returns where it is, as the
marker says it: "the full text is in /path", or why it could not be kept."""


def marker(omitted: int, total: int, limit: int, where: str) -> str:
    """The line that replaces the middle of a truncated result."""
    return (
        f"[... {omitted:,} of {total:,} tokens of this tool result omitted for the model "
        f"(context.toolOutput.maxTokens = {limit:,}); {where} ...]"
    )


def _cut(text: str, head_chars: int, tail_chars: int) -> tuple[str, str]:
    """Head and tail of ``text``, moved to line boundaries when one is near."""
    head = text[:head_chars]
    cut = head.rfind("\n")
    if cut >= head_chars * 0.8:
        head = head[: cut + 1]
    tail = text[len(text) - tail_chars :] if tail_chars > 0 else ""
    cut = tail.find("\n")
    if 0 <= cut <= tail_chars * 0.2:
        tail = tail[cut + 1 :]
    return head, tail


@dataclass(frozen=True, slots=True)
class Cut:
    """How one tool result is sent: its ``total`` tokens and, when over the limit, the
    characters asked for at each end and the tokens omitted. With it, the same truncated text
    is made again without a tokenizer (a resumed session keeps it in its file)."""

    total: int
    head_chars: int = 0
    tail_chars: int = 0
    omitted: int = 0

    def as_list(self) -> list[int]:
        """The cut as saved: ``[total]``, or ``[total, head, tail, omitted]``."""
        if not (self.head_chars or self.tail_chars or self.omitted):
            return [self.total]
        return [self.total, self.head_chars, self.tail_chars, self.omitted]

    @classmethod
    def from_list(cls, values: list[int]) -> Cut:
        """The cut :meth:`as_list` saved."""
        return cls(*(int(v) for v in values[:4]))


def compose(text: str, cut: Cut, limit: int, where: str) -> str:
    """``text`` truncated as ``cut`` says, with the marker in the middle."""
    head, tail = _cut(text, cut.head_chars, cut.tail_chars)
    sep = "" if not head or head.endswith("\n") else "\n"
    return f"{head}{sep}{marker(cut.omitted, cut.total, limit, where)}\n{tail}"


def plan_cut(text: str, total: int, limit: int, counter: TokenCounter, where: str) -> Cut:
    """How to cut ``text`` (``total`` tokens) to at most ``limit`` tokens, marker included."""
    keep = max(limit - MARKER_TOKENS, _MIN_KEEP_TOKENS)
    chars_per_token = len(text) / max(total, 1)
    for _ in range(6):
        head_chars = int(keep * HEAD_SHARE * chars_per_token)
        tail_chars = int(keep * (1 - HEAD_SHARE) * chars_per_token)
        head, tail = _cut(text, head_chars, tail_chars)
        omitted = max(total - counter.text(head) - counter.text(tail), 0)
        cut = Cut(total, head_chars, tail_chars, omitted)
        if counter.text(compose(text, cut, limit, where)) <= limit or keep <= _MIN_KEEP_TOKENS:
            return cut
        keep = max(int(keep * 0.8), _MIN_KEEP_TOKENS)
    return cut


def truncate_text(
    text: str, total: int, limit: int, counter: TokenCounter, where: str
) -> tuple[str, int]:
    """``text`` (``total`` tokens) cut to at most ``limit`` tokens; returns (text, omitted)."""
    cut = plan_cut(text, total, limit, counter, where)
    return compose(text, cut, limit, where), cut.omitted


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (its length when it is ASCII, which Python knows at once)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class ToolOutputLimiter:
    """Applies the per-result token limit to views, caching replacements by call id."""

    def __init__(self, max_tokens: int, counter: TokenCounter, save: SaveFullText) -> None:
        self.max_tokens = max_tokens
        self.counter = counter
        self.save = save
        self._results: dict[str, tuple[str, ToolResult | None]] = {}
        self._messages: dict[str, tuple[tuple[Part, ...], Message]] = {}
        self.cuts: dict[str, Cut] = {}
        """How each long result counted so far is sent, by tool-call id (a result's content
        never changes); a resumed session hands in the cuts made before."""

    def apply(self, view: Sequence[Message]) -> list[Message]:
        """``view`` with every oversized tool result truncated (other messages untouched)."""
        out: list[Message] = []
        for message in view:
            out.append(self._message(message) if message.role == "user" else message)
        return out

    def limit_result(self, result: ToolResult) -> ToolResult:
        """``result`` as the model sees it: truncated when over the limit."""
        return self._result(result) or result

    def _message(self, message: Message) -> Message:
        cached = self._messages.get(message.id)
        if cached is not None and cached[0] is message.parts:
            return cached[1]
        changed = False
        parts: list[Part] = []
        for part in message.parts:
            if isinstance(part, ToolResult):
                replacement = self._result(part)
                if replacement is not None:
                    parts.append(replacement)
                    changed = True
                    continue
            parts.append(part)
        limited = message.replace_parts(tuple(parts)) if changed else message
        self._messages[message.id] = (message.parts, limited)
        return limited

    def _result(self, result: ToolResult) -> ToolResult | None:
        """The truncated copy of ``result``, or None when it fits."""
        content = result.content
        if result.cleared or is_cleared_text(content):
            return None
        if utf8_length(content) <= self.max_tokens:
            return None  # a token is at least one UTF-8 byte: it surely fits
        cached = self._results.get(result.call_id)
        if cached is not None and (cached[0] is content or cached[0] == content):
            return cached[1]
        replacement = self._truncate(result)
        self._results[result.call_id] = (content, replacement)
        return replacement

    def _truncate(self, result: ToolResult) -> ToolResult | None:
        content, limit = result.content, self.max_tokens
        cut = self.cuts.get(result.call_id)
        if cut is not None and cut.total <= limit:
            return None
        if cut is None:
            total = self.counter.text(content)
            if total <= limit:
                self.cuts[result.call_id] = Cut(total)
                return None
        where = self.save(result.call_id, content)
        if cut is None:
            cut = self.cuts[result.call_id] = plan_cut(content, total, limit, self.counter, where)
        log.info(
            "tool output: %s result %s is %d tokens > %d; sent truncated (%d omitted), %s",
            result.name,
            result.call_id,
            cut.total,
            limit,
            cut.omitted,
            where,
        )
        text = compose(content, cut, limit, where)
        return ToolResult(result.call_id, result.name, text, result.is_error, result.cleared)
