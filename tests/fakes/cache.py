"""Prompt-cache simulators: Anthropic explicit breakpoints (protocol.md §B) and OpenAI prefixes."""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass
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


def anthropic_blocks(body: dict[str, Any]) -> list[Block]:
    """Normalise a Messages request into hashed, token-counted blocks (tools, system, messages)."""
    blocks: list[Block] = []
    current = chain_hash("", {"model": body.get("model"), "speed": body.get("speed")})

    append = blocks.append
    for tool in body.get("tools") or []:
        current = add_block(current, "tool", tool, True, append)
    for block in system_blocks(body.get("system")):
        current = add_block(current, "system", block, True, append)
    current = chain_hash(current, _message_salt(body))
    # The messages' blocks (thousands in a long session): a block with no marker anywhere is
    # encoded as it is (no copy), and hashed in pieces -- the same bytes as
    # ``chain_hash_sent(current, _labelled(role, block)[0])``.
    sha256 = hashlib.sha256
    for message in body.get("messages") or []:
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
    auto = body.get("cache_control")
    if auto is not None:
        last = next((b for b in reversed(blocks) if b.cacheable), None)
        if last is not None:
            last.ttl = marker_ttl("cache_control", auto)
    return blocks


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


def openai_units(body: dict[str, Any]) -> list[tuple[str, int]]:
    """(prefix hash, tokens) per tool and per message of a Chat Completions request."""
    units: list[tuple[str, int]] = []
    current = chain_hash("", {"model": body.get("model"), "key": body.get("prompt_cache_key")})
    items = [("tool", t) for t in body.get("tools") or []]
    items += [("message", m) for m in body.get("messages") or []]
    for kind, item in items:
        labelled, sent = _labelled(kind, item)
        current = chain_hash_sent(current, labelled)
        units.append((current, count_tokens_of_sent(item, sent)))
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
