"""Spotting an answer that keeps repeating itself while it streams.

A small local model can get stuck emitting the same line or chunk over and over (one did for
4,000+ chunks at 9 tokens/s, on course for a quarter of an hour). The detector watches the
streamed text (answer and thinking separately) and fires once the text ends with one unit
repeated back to back: at least :data:`MIN_REPEATS` times and :data:`MIN_CHARS` characters in
all, the unit at most :data:`MAX_UNIT` characters (a character, a word, a line, a paragraph).
It checks every :data:`CHECK_EVERY` new characters, so its cost stays small.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_CHARS = 1200
MIN_REPEATS = 8
MAX_UNIT = 400
CHECK_EVERY = 128
KEEP_CHARS = MAX_UNIT * MIN_REPEATS * 2


@dataclass(frozen=True, slots=True)
class Repetition:
    """What repeats (``unit``), how often, and how much text the repeating run covers."""

    unit: str
    repeats: int
    chars: int


class RepetitionDetector:
    """Fed the fragments of one stream; says when its tail has become one unit repeated."""

    def __init__(
        self, min_chars: int = MIN_CHARS, min_repeats: int = MIN_REPEATS, max_unit: int = MAX_UNIT
    ) -> None:
        self.min_chars = min_chars
        self.min_repeats = min_repeats
        self.max_unit = max_unit
        self._tail = ""
        self._unchecked = 0

    def feed(self, text: str) -> Repetition | None:
        """Add one fragment; the repetition found at the end of the stream, if any."""
        self._tail = (self._tail + text)[-KEEP_CHARS:]
        self._unchecked += len(text)
        if self._unchecked < CHECK_EVERY or len(self._tail) < self.min_chars:
            return None
        self._unchecked = 0
        return find_repetition(self._tail, self.min_chars, self.min_repeats, self.max_unit)


def find_repetition(
    text: str,
    min_chars: int = MIN_CHARS,
    min_repeats: int = MIN_REPEATS,
    max_unit: int = MAX_UNIT,
) -> Repetition | None:
    """The shortest unit that ``text`` ends with repeated back to back (at least
    ``min_repeats`` times over at least ``min_chars`` characters), or None."""
    for period in range(1, max_unit + 1):
        needed = max(min_chars, period * min_repeats)
        if needed > len(text):
            break
        tail = text[-needed:]
        if tail[:-period] != tail[period:]:
            continue
        run = _run_length(text, period)
        return Repetition(_readable(text[-period:]), run // period, run)
    return None


def _readable(unit: str) -> str:
    """The repeating unit turned to start where a line starts, when it spans lines (any
    rotation of it repeats just the same)."""
    newline = unit.find("\n")
    if newline < 0 or newline == len(unit) - 1:
        return unit
    return unit[newline + 1 :] + unit[: newline + 1]


def _run_length(text: str, period: int) -> int:
    """How many characters at the end of ``text`` repeat with ``period``."""
    length = len(text)
    run = period
    while run < length and text[length - run - 1] == text[length - run - 1 + period]:
        run += 1
    return run
