"""Deterministic token counting for the cache simulators: ceil(chars / 4) of canonical JSON."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from typing import Any

# Made once: ``json.dumps`` with any non-default option builds a new encoder on every call,
# which on a long prompt (10,000 blocks) costs as much as the encoding itself.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_AS_SENT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _one_shot(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encoder.encode``, with the C encoder made once instead of on every call (which is
    most of the cost for a small block). Same text for anything JSON-serialisable; what it
    leaves out is the circular-reference check (a parsed request cannot be circular)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return encoder.encode
    iterencode = make(
        None,
        encoder.default,
        json.encoder.encode_basestring,
        None,
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )

    def encode(value: Any) -> str:
        return "".join(iterencode(value, 0))

    return encode


_canonical = _one_shot(_CANONICAL)
_as_sent = _one_shot(_AS_SENT)


def canonical_json(value: Any) -> str:
    """Serialise ``value`` the same way every time (sorted keys, no spaces, raw unicode)."""
    return _canonical(value)


def as_sent_json(value: Any) -> str:
    """Serialise ``value`` with its keys in the order they were sent (no spaces, raw unicode):
    the text ``chain_hash`` hashes."""
    return _as_sent(value)


def tokens_of_length(length: int) -> int:
    """Tokens of a text of ``length`` characters: ceil(length / 4)."""
    return math.ceil(length / 4)


def count_tokens(value: Any) -> int:
    """Tokens of one block: ceil(len(canonical JSON) / 4); a plain string counts as itself."""
    text = value if isinstance(value, str) else canonical_json(value)
    return tokens_of_length(len(text))


def count_tokens_of_sent(value: Any, sent: str) -> int:
    """``count_tokens(value)`` from ``sent`` (``as_sent_json(value)``), without encoding it
    again: sorting the keys reorders the text but never changes its length."""
    return tokens_of_length(len(value) if isinstance(value, str) else len(sent))


def chain_hash(previous: str, item: Any) -> str:
    """Extend a prefix hash chain by one item (anything JSON-serialisable), keys in the order
    they were sent: like the real services, which cache the rendered prompt, a reordered
    object (a tool schema, tool arguments) is a different prefix."""
    return chain_hash_sent(previous, as_sent_json(item))


def chain_hash_sent(previous: str, sent: str) -> str:
    """``chain_hash`` of an item already serialised with ``as_sent_json``."""
    digest = hashlib.sha256()
    digest.update(previous.encode())
    digest.update(b"\x00")
    digest.update(sent.encode())
    return digest.hexdigest()


def without_cache_control(block: Any) -> Any:
    """Return a copy of a block with ``cache_control`` removed (markers never change cache keys)."""
    if not isinstance(block, dict):
        return block
    clean = {k: v for k, v in block.items() if k != "cache_control"}
    content = clean.get("content")
    if isinstance(content, list):
        clean["content"] = [without_cache_control(part) for part in content]
    return clean
