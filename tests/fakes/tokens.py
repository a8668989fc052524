"""Deterministic token counting for the cache simulators: ceil(chars / 4) of canonical JSON."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def canonical_json(value: Any) -> str:
    """Serialise ``value`` the same way every time (sorted keys, no spaces, raw unicode)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def count_tokens(value: Any) -> int:
    """Tokens of one block: ceil(len(canonical JSON) / 4); a plain string counts as itself."""
    text = value if isinstance(value, str) else canonical_json(value)
    return math.ceil(len(text) / 4)


def chain_hash(previous: str, item: Any) -> str:
    """Extend a prefix hash chain by one item (anything JSON-serialisable), keys in the order
    they were sent: like the real services, which cache the rendered prompt, a reordered
    object (a tool schema, tool arguments) is a different prefix."""
    digest = hashlib.sha256()
    digest.update(previous.encode())
    digest.update(b"\x00")
    digest.update(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode())
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
