"""Prompt-cache simulators: Anthropic explicit breakpoints (protocol.md §B) and OpenAI prefixes."""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tests.fakes.anthropic_validate import content_blocks, marker_ttl, system_blocks
from tests.fakes.tokens import (
    as_sent_json,
    chain_hash,
    chain_hash_sent,
    count_tokens_of_sent,
    tokens_of_length,
    without_cache_control,
)

LOOKBACK = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}
#: (substring of the model name, minimum cacheable prompt tokens); first match wins.
ANTHROPIC_MIN_CACHE_TOKENS: list[tuple[str, int]] = [
    ("opus-5", 512), ("sonnet-5-5", 512), ("haiku-5-5", 512), ("fable", 512), ("mythos-5", 512),
    ("opus-4-7", 2048), ("mythos-preview", 2048), ("haiku-3-5", 2048),
    ("opus-4-6", 4096), ("opus-4-5", 4096), ("haiku-4-5", 4096),
]  # fmt: skip
DEFAULT_MIN_CACHE_TOKENS = 1024


@dataclass(frozen=True)
class Block:
    """One cacheable unit of a prompt: its chained prefix hash, tokens, and breakpoint if any."""

    hash: str
    tokens: int
    ttl: str | None = None
    cacheable: bool = True


@dataclass
class _Entry:
    expires: float
    ttl: float


class EntryStore:
    """Prefix hash -> expiry on a (fake) clock; a hit refreshes the entry's TTL."""

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self._entries: dict[str, _Entry] = {}
        self.lock = threading.RLock()

    def hit(self, key: str) -> bool:
        """True if ``key`` is cached and unexpired; a hit refreshes its TTL."""
        now = self.now()
        entry = self._entries.get(key)
        if entry is None or entry.expires <= now:
            self._entries.pop(key, None)
            return False
        entry.expires = now + entry.ttl
        return True

    def put(self, key: str, ttl: float) -> None:
        """Store (or extend) ``key`` for ``ttl`` seconds from now."""
        expires = self.now() + ttl
        old = self._entries.get(key)
        if old is None or old.expires < expires:
            self._entries[key] = _Entry(expires, max(ttl, old.ttl if old else 0.0))

    def clear(self) -> None:
        """Forget everything."""
        self._entries.clear()


class PrefixMemo:
    """What the simulators worked out for each message, by the prefix hash before it and the
    message's exact text (``request_text.parse_request``): the blocks it adds and the hash
    after it. A long session's request repeats the previous one's messages, so only the new
    ones are encoded and hashed. Equal text parses to equal values, so a result taken from
    here is the one working it out again would give; a message sent as other text (another
    key order, ``1`` for ``true``) is worked out anew. Bounded: it forgets everything when it
    holds more than :attr:`limit` messages."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self._results: dict[tuple[str, str, str], tuple[tuple[Any, ...], str]] = {}

    def get(self, kind: str, before: str, text: str) -> tuple[tuple[Any, ...], str] | None:
        """(what the message added, the hash after it) if it was worked out before."""
        return self._results.get((kind, before, text))

    def put(self, kind: str, before: str, text: str, added: Sequence[Any], after: str) -> None:
        """Keep what one message added after ``before``."""
        if len(self._results) >= self.limit:
            self._results.clear()
        self._results[(kind, before, text)] = (tuple(added), after)


def min_cache_tokens(model: str, table: list[tuple[str, int]], default: int) -> int:
    """Minimum cacheable prefix for ``model`` from a (substring, tokens) table."""
    return next((tokens for key, tokens in table if key in model), default)


def _message_salt(body: dict[str, Any]) -> dict[str, Any]:
    output_config = body.get("output_config")
    effort = output_config.get("effort") if isinstance(output_config, dict) else None
    return {
        "tool_choice": body.get("tool_choice"),
        "thinking": body.get("thinking"),
        "effort": effort,
    }


def _marker(block: dict[str, Any]) -> Any:
    if block.get("cache_control") is not None:
        return block["cache_control"]
    if block.get("type") == "tool_result":
        parts = [p.get("cache_control") for p in content_blocks(block.get("content"))]
        return next((p for p in parts if p is not None), None)
    return None


@functools.cache
def _label_json(label: str) -> str:
    """``as_sent_json(label)``, made once per label (a handful: roles and sections)."""
    return as_sent_json(label)


def _labelled(label: str, item: Any) -> tuple[str, str]:
    """(``as_sent_json([label, item])``, ``as_sent_json(item)``), ``item`` encoded once."""
    sent = as_sent_json(item)
    return f"[{_label_json(label)},{sent}]", sent


def _plain(block: dict[str, Any]) -> bool:
    """True if ``block`` holds no ``cache_control`` anywhere ``without_cache_control`` looks
    (so it is its own clean copy), and so no marker."""
    return "cache_control" not in block and not isinstance(block.get("content"), list)


def anthropic_blocks(
    body: dict[str, Any], texts: Sequence[str] | None = None, memo: PrefixMemo | None = None
) -> list[Block]:
    """Normalise a Messages request into hashed, token-counted blocks (tools, system, messages).

    With the text each message was sent as (``texts``) and a ``memo``, a message the memo
    already holds after the same prefix adds its kept blocks."""
    blocks: list[Block] = []
    current = chain_hash("", {"model": body.get("model"), "speed": body.get("speed")})

    append = blocks.append
    for tool in body.get("tools") or []:
        current = add_block(current, "tool", tool, True, append)
    for block in system_blocks(body.get("system")):
        current = add_block(current, "system", block, True, append)
    current = chain_hash(current, _message_salt(body))
    messages = body.get("messages") or []
    kept = memo if memo is not None and texts is not None and len(texts) == len(messages) else None
    for index, message in enumerate(messages):
        if kept is None:
            current = _message_blocks(current, message, append)
            continue
        text = texts[index]  # type: ignore[index]
        found = kept.get("anthropic", current, text)
        if found is not None:
            blocks.extend(found[0])
            current = found[1]
            continue
        start, before = len(blocks), current
        current = _message_blocks(current, message, append)
        kept.put("anthropic", before, text, blocks[start:], current)
    auto = body.get("cache_control")
    if auto is not None:
        last = next((i for i in range(len(blocks) - 1, -1, -1) if blocks[i].cacheable), None)
        if last is not None:
            blocks[last] = replace(blocks[last], ttl=marker_ttl("cache_control", auto))
    return blocks


def _message_blocks(current: str, message: Any, append: Callable[[Block], None]) -> str:
    """Append the blocks of one message after prefix hash ``current``; the hash after them.

    A block with no marker anywhere is encoded as it is (no copy), and hashed in pieces: the
    same bytes as ``chain_hash_sent(current, _labelled(role, block)[0])``."""
    sha256 = hashlib.sha256
    role = str(message.get("role"))
    head = f"[{_label_json(role)},".encode()
    for block in content_blocks(message.get("content")):
        kind = block.get("type")
        cacheable = kind not in ("thinking", "redacted_thinking") and not (
            kind == "text" and not block.get("text")
        )
        if not _plain(block):
            current = add_block(current, role, block, cacheable, append)
            continue
        sent = as_sent_json(block)
        digest = sha256(current.encode())
        digest.update(b"\x00")
        digest.update(head)
        digest.update(sent.encode())
        digest.update(b"]")
        current = digest.hexdigest()
        append(Block(current, tokens_of_length(len(sent)), None, cacheable))
    return current


def add_block(
    current: str,
    section: str,
    raw: dict[str, Any],
    cacheable: bool,
    append: Callable[[Block], None],
) -> str:
    """Append the Block of ``raw`` (any block) after prefix hash ``current``; its hash."""
    clean = without_cache_control(raw)
    labelled, sent = _labelled(section, clean)
    current = chain_hash_sent(current, labelled)
    marker = _marker(raw)
    ttl = marker_ttl(section, marker) if marker is not None else None
    append(Block(current, count_tokens_of_sent(clean, sent), ttl, cacheable))
    return current


def anthropic_cache_usage(blocks: list[Block], store: EntryStore, minimum: int) -> dict[str, Any]:
    """Read then write the cache for one request; return Anthropic usage (without output)."""
    cumulative: list[int] = []
    running = 0
    for block in blocks:
        running += block.tokens
        cumulative.append(running)
    breakpoints = [(pos, b.ttl) for pos, b in enumerate(blocks) if b.ttl is not None]
    with store.lock:
        hit_pos = -1
        for pos, _ in breakpoints:
            for probe in range(pos, max(-1, pos - LOOKBACK), -1):
                if store.hit(blocks[probe].hash):
                    hit_pos = max(hit_pos, probe)
                    break
        read = cumulative[hit_pos] if hit_pos >= 0 else 0
        written = [(p, t) for p, t in breakpoints if p > hit_pos and cumulative[p] >= minimum]
        for pos, ttl in written:
            store.put(blocks[pos].hash, TTL_SECONDS[str(ttl)])
    last = max((cumulative[p] for p, _ in written), default=read)
    one_hour = max((cumulative[p] for p, t in written if t == "1h"), default=read)
    return {
        "input_tokens": running - last,
        "cache_creation_input_tokens": last - read,
        "cache_read_input_tokens": read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": last - one_hour,
            "ephemeral_1h_input_tokens": one_hour - read,
        },
    }


def openai_units(
    body: dict[str, Any], texts: Sequence[str] | None = None, memo: PrefixMemo | None = None
) -> list[tuple[str, int]]:
    """(prefix hash, tokens) per tool and per message of a Chat Completions request (with
    ``texts`` and a ``memo``, a message already worked out after the same prefix is looked up)."""
    units: list[tuple[str, int]] = []
    current = chain_hash("", {"model": body.get("model"), "key": body.get("prompt_cache_key")})
    for tool in body.get("tools") or []:
        labelled, sent = _labelled("tool", tool)
        current = chain_hash_sent(current, labelled)
        units.append((current, count_tokens_of_sent(tool, sent)))
    messages = body.get("messages") or []
    kept = memo if memo is not None and texts is not None and len(texts) == len(messages) else None
    for index, message in enumerate(messages):
        text = texts[index] if kept is not None and texts is not None else ""
        found = kept.get("openai", current, text) if kept is not None else None
        if found is not None:
            units.extend(found[0])
            current = found[1]
            continue
        before = current
        labelled, sent = _labelled("message", message)
        current = chain_hash_sent(current, labelled)
        units.append((current, count_tokens_of_sent(message, sent)))
        if kept is not None:
            kept.put("openai", before, text, units[-1:], current)
    return units


def openai_cached_tokens(
    units: list[tuple[str, int]], store: EntryStore, ttl: float, granularity: int = 128
) -> int:
    """Longest cached prefix, rounded down to ``granularity`` (0 below 1024); caches this prompt."""
    matched = 0
    running = 0
    with store.lock:
        for key, tokens in units:
            running += tokens
            if store.hit(key):
                matched = running
        for key, _ in units:
            store.put(key, ttl)
    cached = (matched // granularity) * granularity
    return cached if cached >= 1024 else 0
