"""Bytes and text at lull's edges, decided once.

- **In** (file names, argv, piped stdin): UTF-8 with ``surrogateescape``, as ``os.fsdecode``
  does (:func:`decode_bytes`). Every byte survives: an undecodable byte becomes a lone
  surrogate (U+DC80-U+DCFF), and a file name decoded so opens the same file again. Text that
  is only read, never written back (file contents and command output a tool shows, web
  pages), is decoded with replacement instead; ``edit`` refuses a file that is not UTF-8.
- **To disk** (session files, JSON lines): :func:`json_line` writes every lone surrogate as a
  JSON ``\\uXXXX`` escape, so the line is valid UTF-8, writing never raises, and reading it
  back gives the same string.
- **To the wire and to people** (a provider's JSON, the terminal): :func:`wire_text` joins
  split surrogate pairs and replaces each remaining lone surrogate with U+FFFD, the
  replacement character; :func:`wire_safe` does it for a whole request body.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar, cast

REPLACEMENT = "\ufffd"
T = TypeVar("T")
_SURROGATE = re.compile("[\\ud800-\\udfff]")


def decode_bytes(data: bytes) -> str:
    """Outside bytes as text: UTF-8, undecodable bytes kept as lone surrogates."""
    return data.decode("utf-8", "surrogateescape")


def has_surrogates(text: str) -> bool:
    """True if ``text`` holds a surrogate code point (not encodable as strict UTF-8)."""
    return _SURROGATE.search(text) is not None


def wire_text(text: str) -> str:
    """``text`` with split surrogate pairs joined and lone surrogates replaced by U+FFFD:
    what a provider or a terminal is sent."""
    if not has_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def wire_safe(value: T) -> T:
    """``value`` (a JSON-like request body) with :func:`wire_text` applied to every string,
    keys included; unchanged parts are returned as the same objects."""
    return cast(T, _wire_safe(value))


def _wire_safe(value: Any) -> Any:
    if isinstance(value, str):
        return wire_text(value)
    if isinstance(value, dict):
        items = [(_wire_safe(k), _wire_safe(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, list | tuple):
        items = [_wire_safe(v) for v in value]
        if all(v is v0 for v, v0 in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value


def text_bytes(text: str) -> bytes:
    """``text`` as bytes for hashing or sizing: UTF-8, surrogates passed through (never raises;
    different strings give different bytes)."""
    return text.encode("utf-8", "surrogatepass")


def json_text(value: Any) -> str:
    """``value`` as compact JSON, non-ASCII kept readable, every lone surrogate escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_line(value: Any) -> bytes:
    """``value`` as one UTF-8 JSON line (with its newline) that reads back unchanged."""
    return (json_text(value) + "\n").encode("utf-8")
