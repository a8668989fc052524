"""Token counting: tiktoken, offline-safe, cached per message, reconciled with reported usage.

* Tokenizers (which encoding, offline-safe loading) live in :mod:`lull.context.tokenizer`.
* Caching: a message's count is cached under its id; an identical ``parts``
  tuple is a hit without looking at the content, a view that replaced parts
  under the same id (cleared, truncated, merged summary) is recognised by a
  cheap content fingerprint. A 1,000-message history costs a dict lookup per
  message per request. Counts made with the tokenizer can be handed back
  (:meth:`TokenCounter.remember`: a resumed session's counts from its file).
* Deferred loading (``deferred=True``): loading a tokenizer costs ~0.2 s, more than a
  one-shot prompt of a few thousand tokens is worth. A deferred counter estimates
  (characters / 4) until :meth:`TokenCounter.load_exact`; counts it was handed stay
  exact. :meth:`TokenCounter.estimated` says how much of a count is estimated, so the
  caller (``app/engine/fitting/fitter.py``) loads the tokenizer only when the estimate could cross
  a threshold.
* Calibration (:class:`UsageCalibration`): the provider's reported prompt size
  of the last request plus the (scaled) local estimate of what changed since.

"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import assert_never

from lull.context.estimate import CHARS_PER_TOKEN, IMAGE_TOKENS
from lull.context.tokenizer import (
    CHAR_ESTIMATE,
    ESTIMATE,
    OFFLINE_ENCODING,
    Tokenizer,
    encoding_name_for,
    get_tokenizer,
    tiktoken_cache_file,
    tokenizer_name_for,
)
from lull.model.messages import Image, Message, Part, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ToolSpec

__all__ = [
    "CHAR_ESTIMATE",
    "OFFLINE_ENCODING",
    "TokenCounter",
    "Tokenizer",
    "UsageCalibration",
    "encoding_name_for",
    "get_tokenizer",
    "tiktoken_cache_file",
    "tokenizer_name_for",
]

MESSAGE_OVERHEAD = 4
TOOL_CALL_OVERHEAD = 8
TOOL_RESULT_OVERHEAD = 6
TOOL_SPEC_OVERHEAD = 8
_MAX_FINGERPRINTS = 50_000
_CACHED_TEXT_CHARS = 2048  # texts this long are counted once (truncation and message counts)
_MAX_LONG_TEXTS = 4096


def _part_key(part: Part) -> object:
    """What identifies a part's content cheaply (string hashes are cached by Python)."""
    match part:
        case Text(text):
            return (0, text)
        case Thinking(text, signature, redacted):
            return (1, text, signature, redacted)
        case ToolCall(call_id, name):
            return (2, call_id, name)
        case ToolResult(call_id, name, content, is_error, cleared):
            return (3, call_id, name, content, is_error, cleared)
        case Image(media_type, data):
            return (4, media_type, data)
        case _:
            assert_never(part)


def fingerprint(parts: Sequence[Part]) -> int:
    """A content fingerprint of a message's parts (used with the message id as cache key)."""
    return hash(tuple(_part_key(p) for p in parts))


class TokenCounter:
    """Counts tokens of messages, system prompt and tools for one model, with caches
    (``tokenizer``: count with this one, instead of loading the model's on first use)."""

    def __init__(
        self,
        model: str = "",
        *,
        encoding: str | None = None,
        deferred: bool = False,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.encoding = encoding or encoding_name_for(model)
        self.deferred = deferred
        self._tokenizer: Tokenizer | None = tokenizer  # None: get_tokenizer on first use
        # message id -> (the parts counted, tokens, counted exactly)
        self._by_id: dict[str, tuple[tuple[Part, ...], int, bool]] = {}
        self._by_fingerprint: dict[tuple[str, int], int] = {}
        self._texts: dict[str, int] = {}
        self._long_texts: dict[str, int] = {}
        self._specs: dict[tuple[str, str], int] = {}

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer in use: the characters/4 estimate while deferred, else the real one
        (loaded on first use)."""
        if self.deferred:
            return ESTIMATE
        if self._tokenizer is None:
            self._tokenizer = get_tokenizer(self.encoding)
        return self._tokenizer

    @property
    def exact(self) -> bool:
        """True when new counts come from the tokenizer (not deferred, or loaded since)."""
        return not self.deferred

    def load_exact(self) -> None:
        """Count with the tokenizer from now on; estimated counts are forgotten."""
        if not self.deferred:
            return
        self.deferred = False
        self._texts.clear()
        self._long_texts.clear()
        self._specs.clear()
        self._by_id = {key: entry for key, entry in self._by_id.items() if entry[2]}

    def remember(self, message: Message, tokens: int) -> None:
        """Take ``tokens`` as ``message``'s exact count (one made earlier, e.g. saved in the
        session file), as long as its parts stay the same objects."""
        self._by_id[message.id] = (message.parts, tokens, True)

    def estimated(self, messages: Iterable[Message]) -> int:
        """Tokens of ``messages`` (already counted) that are estimates, not exact counts."""
        total = 0
        for message in messages:
            entry = self._by_id.get(message.id)
            if entry is None or not entry[2]:
                total += entry[1] if entry is not None else self.message(message)
        return total

    def exact_counts(self, messages: Iterable[Message]) -> dict[str, int]:
        """The exact counts known for ``messages`` as they are (id -> tokens)."""
        counts: dict[str, int] = {}
        for message in messages:
            entry = self._by_id.get(message.id)
            if entry is not None and entry[2] and entry[0] is message.parts:
                counts[message.id] = entry[1]
        return counts

    def text(self, text: str) -> int:
        """Tokens of a plain text; long texts (tool outputs) are cached by value."""
        if len(text) < _CACHED_TEXT_CHARS:
            return self.tokenizer.count(text)
        count = self._long_texts.get(text)
        if count is None:
            if len(self._long_texts) >= _MAX_LONG_TEXTS:
                self._long_texts.clear()
            count = self._long_texts[text] = self.tokenizer.count(text)
        return count

    def stable_text(self, text: str) -> int:
        """Tokens of a text that recurs every request (system prompt), cached by value."""
        count = self._texts.get(text)
        if count is None:
            if len(self._texts) > 64:
                self._texts.clear()
            count = self._texts[text] = self.tokenizer.count(text)
        return count

    def part(self, part: Part) -> int:
        """Tokens one message part costs when sent (with a small structural overhead)."""
        match part:
            case Text(text):
                return self.text(text)
            case Thinking(text, signature, redacted):
                return -(-len(signature) // CHARS_PER_TOKEN) if redacted else self.text(text)
            case ToolCall(call_id, name, arguments):
                args = json.dumps(dict(arguments), ensure_ascii=False, default=str)
                return TOOL_CALL_OVERHEAD + self.text(call_id) + self.text(name) + self.text(args)
            case ToolResult(call_id, _name, content):
                return TOOL_RESULT_OVERHEAD + self.text(call_id) + self.text(content)
            case Image():
                return IMAGE_TOKENS
            case _:
                assert_never(part)

    def message(self, message: Message) -> int:
        """Tokens of one message, cached by id (identity fast path, then fingerprint)."""
        entry = self._by_id.get(message.id)
        if entry is not None and entry[0] is message.parts:
            return entry[1]
        if self.deferred:
            estimate = MESSAGE_OVERHEAD + sum(self.part(p) for p in message.parts)
            self._by_id[message.id] = (message.parts, estimate, False)
            return estimate
        key = (message.id, fingerprint(message.parts))
        cached = self._by_fingerprint.get(key)
        count = (
            MESSAGE_OVERHEAD + sum(self.part(p) for p in message.parts)
            if cached is None
            else cached
        )
        if cached is None:
            if len(self._by_fingerprint) >= _MAX_FINGERPRINTS:
                self._by_fingerprint.clear()
            self._by_fingerprint[key] = count
        self._by_id[message.id] = (message.parts, count, True)
        return count

    def messages(self, messages: Iterable[Message]) -> int:
        """Tokens of a message list."""
        return sum(self.message(m) for m in messages)

    def tools(self, specs: Sequence[ToolSpec]) -> int:
        """Tokens of the tool definitions (cached per name and description)."""
        total = 0
        for spec in specs:
            key = (spec.name, spec.description)
            count = self._specs.get(key)
            if count is None:
                schema = json.dumps(dict(spec.parameters), ensure_ascii=False, default=str)
                count = TOOL_SPEC_OVERHEAD + self.text(spec.name + spec.description + schema)
                self._specs[key] = count
            total += count
        return total

    def prefix(self, system: str, environment: str, specs: Sequence[ToolSpec]) -> int:
        """Tokens of everything sent before the messages: system prompt, environment, tools."""
        return self.stable_text(system) + self.stable_text(environment) + self.tools(specs)


class UsageCalibration:
    """Reconciles local estimates with what the provider reports.

    After a request whose local estimate was ``local`` and whose reported
    prompt size was ``reported``, a later prompt estimated locally at ``now``
    is ``reported + ratio * (now - local)`` with ``ratio = reported / local``
    (clamped): the last real number plus what was added (or removed) since.
    """

    MIN_RATIO = 0.5
    MAX_RATIO = 3.0

    def __init__(self) -> None:
        self.reported = 0
        self.local = 0

    @property
    def calibrated(self) -> bool:
        """True once a reported size has been observed."""
        return self.reported > 0 and self.local > 0

    @property
    def ratio(self) -> float:
        """Provider tokens per local token (1.0 before any observation)."""
        if not self.calibrated:
            return 1.0
        return min(self.MAX_RATIO, max(self.MIN_RATIO, self.reported / self.local))

    def observe(self, reported: int, local: int) -> None:
        """Note a request's reported prompt size next to its local estimate."""
        if reported > 0 and local > 0:
            self.reported, self.local = reported, local

    def shift(self, tokens: int) -> None:
        """Move the last local estimate by ``tokens``: the local count changed under it (the
        tokenizer replaced an estimate), so estimates made from now on stay continuous."""
        if self.calibrated:
            self.local = max(1, self.local + tokens)

    def estimate(self, local: int) -> int:
        """The provider-scale size of a prompt estimated locally at ``local`` tokens."""
        if not self.calibrated:
            return local
        return max(0, math.ceil(self.reported + self.ratio * (local - self.local)))

    def local_for(self, tokens: int) -> int:
        """Local tokens corresponding to ``tokens`` provider tokens (for budgets)."""
        return math.floor(tokens / self.ratio)
