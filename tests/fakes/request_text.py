"""A request body parsed with the text of each message kept beside it.

A long session's request repeats the previous one's messages. With each message's text (the
exact characters it was sent as), the cache simulators look up what they worked out for it
the last time instead of encoding and hashing it again (``cache.PrefixMemo``): equal text
parses to equal values, so the result is the same, and any change at all (a key order, ``1``
for ``true``, an escape) is other text, worked out anew.

:func:`parse_request` reads the top-level object with the stdlib's own JSON scanner, one
value at a time, and the ``messages`` array one element at a time, so what it returns is what
``json.loads`` returns. Anything unusual (not an object, a parse error, a repeated
``messages`` key, bytes that are not UTF-8) gives no texts, and the caller parses the body
the usual way (which also words any error).

Given the messages of recent requests (:class:`RecentMessages`), a message sent as the text
a recent request sent at the same place is not parsed again: its value is that request's
(the same object; a JSON object's text ends where it ends, so the text matching is the whole
element). Only for a fake whose bodies nobody changes afterwards (one in its own process).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

_DECODER = json.JSONDecoder()
#: The stdlib's scanner (its C one when built): (text, index) -> (value, end).
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_SCAN_STRING: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*")
_SPACES = frozenset(" \t\n\r")
#: What may follow an array element (a number's text matching would not end it otherwise).
_AFTER = frozenset(",]") | _SPACES


class _Unusual(Exception):
    """The body is not a plain JSON object this reader takes; parse it the usual way."""


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _expect(text: str, index: int, char: str) -> int:
    if text[index : index + 1] != char:
        raise _Unusual
    return _skip(text, index + 1)


class RecentMessages:
    """The messages (text and value) of the last few requests, for :func:`parse_request`."""

    def __init__(self, keep: int = 4) -> None:
        self._kept: deque[tuple[list[str], list[Any]]] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def add(self, texts: list[str], values: list[Any]) -> None:
        """Keep one request's messages."""
        with self._lock:
            self._kept.append((texts, values))

    def starting_at(self, text: str, index: int) -> tuple[Sequence[str], Sequence[Any]]:
        """The kept messages of the newest request whose first one is sent at ``index``."""
        with self._lock:
            kept = list(self._kept)
        for texts, values in reversed(kept):
            if texts and text.startswith(texts[0], index):
                return texts, values
        return (), ()


def _array_with_texts(
    text: str, index: int, recent: RecentMessages | None
) -> tuple[list[Any], list[str], int]:
    """The array starting at ``index`` ("[" already skipped), each element's text, the end."""
    values: list[Any] = []
    texts: list[str] = []
    if text[index : index + 1] == "]":
        return values, texts, index + 1
    add_value, add_text = values.append, texts.append
    known_texts, known_values = recent.starting_at(text, index) if recent else ((), ())
    while True:
        number = len(texts)
        piece = known_texts[number] if number < len(known_texts) else ""
        if piece and text.startswith(piece, index) and text[index + len(piece)] in _AFTER:
            add_value(known_values[number])
            add_text(piece)
            end = index + len(piece)
        else:
            known_texts = ()
            value, end = _SCAN(text, index)
            add_value(value)
            add_text(text[index:end])
        after = text[end : end + 1]
        if after == ",":  # compact JSON: the next element starts right after the comma
            index = end + 1
            if text[index : index + 1] in _SPACES:
                index = _skip(text, index)
            continue
        index = _skip(text, end)
        if text[index : index + 1] == "]":
            return values, texts, index + 1
        index = _expect(text, index, ",")


def _object_with_texts(
    text: str, recent: RecentMessages | None
) -> tuple[dict[str, Any], list[str]]:
    body: dict[str, Any] = {}
    texts: list[str] | None = None
    index = _expect(text, _skip(text, 0), "{")
    if text[index : index + 1] == "}":
        index += 1
    else:
        while True:
            if text[index : index + 1] != '"':
                raise _Unusual
            key, index = _SCAN_STRING(text, index + 1)
            index = _expect(text, _skip(text, index), ":")
            if key == "messages" and text[index : index + 1] == "[":
                if texts is not None:
                    raise _Unusual
                body[key], texts, index = _array_with_texts(text, _skip(text, index + 1), recent)
            else:
                body[key], index = _SCAN(text, index)
            index = _skip(text, index)
            if text[index : index + 1] == "}":
                index += 1
                break
            index = _expect(text, index, ",")
    if _skip(text, index) != len(text) or texts is None:
        raise _Unusual
    return body, texts


def parse_request(
    raw: bytes, recent: RecentMessages | None = None
) -> tuple[dict[str, Any], list[str]] | None:
    """The body and the text of each of its ``messages``, or None when the body is anything
    but a UTF-8 JSON object with one ``messages`` array (parse it with ``json.loads``).
    With ``recent``, repeated messages take their values from there, and this request's
    messages are kept in it."""
    try:
        body, texts = _object_with_texts(raw.decode("utf-8"), recent)
    except (_Unusual, StopIteration, ValueError, IndexError):  # JSONDecodeError is a ValueError
        return None
    if recent is not None:
        recent.add(texts, body["messages"])
    return body, texts
