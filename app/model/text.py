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
- **To a terminal** (text from the model, a tool, a file name, shown by any front end):
  :func:`terminal_text` shows every control character instead of sending it, so no escape
  sequence in it (a clipboard write, a window title, a clear screen) reaches the terminal;
  lull's own styling is added after, by the front end. JSON output needs nothing more:
  :func:`json_text` escapes every control character.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar, cast

REPLACEMENT = "\ufffd"
T = TypeVar("T")
_SURROGATE = re.compile("[\\ud800-\\udfff]")
_JSON_ESCAPED = re.compile("[\\x7f-\\x9f\\ud800-\\udfff]")  # json.dumps leaves these raw
_CONTROL = re.compile("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]|\\r(?!\\n|\\Z)")
_DELETE_PICTURE = "\u2421"  # ␡


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


def terminal_text(text: str) -> str:
    """``text`` as a terminal may be sent it: every control character shown, none obeyed.

    A C0 control becomes its Unicode control picture (ESC ``␛``, BEL ``␇``, NUL ``␀``), DEL
    ``␡``, and a C1 control the ``␛`` sequence it stands for (CSI U+009B ``␛[``), so
    ``ESC ] 52 ; c ; … BEL`` shows as ``␛]52;c;…␇`` instead of writing the clipboard. Newlines,
    tabs and a carriage return that ends a line (``\\r\\n``, or the text) are kept; a carriage
    return inside a line, which would let later text overwrite earlier, shows as ``␍``. Lone
    surrogates are replaced as :func:`wire_text` does."""
    return _CONTROL.sub(_control_picture, wire_text(text))


def _control_picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return _DELETE_PICTURE
    return "\u241b" + chr(code - 0x40)


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
    """``value`` as compact JSON, non-ASCII kept readable; every control character (DEL and
    C1 too, which ``json.dumps`` leaves raw) and every lone surrogate escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_line(value: Any) -> bytes:
    """``value`` as one UTF-8 JSON line (with its newline) that reads back unchanged."""
    return (json_text(value) + "\n").encode("utf-8")
