"""Messages requests the fake accepted, kept so that a request repeating one's leading
messages is checked from where it differs (every request of a long session repeats the
previous one; checking 8,000 messages again costs as much as the rest of the answer).

What is skipped passed before: a message's own checks (shape, blocks, signatures) and the
pairing of two turns within the repeated messages depend only on those messages, and an
accepted request's last message is never counted in (as the last one it was checked
under looser rules: an empty final assistant message). Messages are compared by the text
they were sent as (``request_text.parse_request``), so a change of any kind is checked.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tests.fakes.anthropic_validate import Turn

Marker = tuple[int, str, Any]
"""A cache marker of a message: (message index, path, cache_control)."""


@dataclass(frozen=True)
class Resumed:
    """Where checking a request starts: the repeated messages' count, their turns (the last
    one cut at the count), that turn's index, their tool use ids and cache markers."""

    start: int
    turns: list[Turn]
    boundary: int
    tool_use_ids: set[str]
    markers: list[Marker]


@dataclass(frozen=True)
class _Accepted:
    texts: list[str]
    turns: list[Turn]
    firsts: list[int]
    markers: list[Marker]


class AcceptedPrefixes:
    """The last few accepted requests' messages (as text), turns and message markers."""

    def __init__(self, keep: int = 4) -> None:
        self._kept: deque[_Accepted] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def add(self, texts: list[str], turns: list[Turn], markers: list[Marker]) -> None:
        """Keep an accepted request (its turns are never changed afterwards)."""
        entry = _Accepted(texts, turns, [turn.first for turn in turns], markers)
        with self._lock:
            self._kept.append(entry)

    def resume(self, messages: Sequence[Any], texts: Sequence[str] | None) -> Resumed | None:
        """Where to start checking ``messages`` (sent as ``texts``), or None: from the start."""
        if texts is None or len(texts) != len(messages):
            return None
        with self._lock:
            kept = list(self._kept)
        best, count = None, 0
        for entry in kept:
            limit = min(len(entry.texts) - 1, len(texts))  # never an accepted request's last
            same = 0
            while same < limit and entry.texts[same] == texts[same]:
                same += 1
            if same > count:
                best, count = entry, same
        if best is None:
            return None
        boundary = bisect_right(best.firsts, count - 1) - 1
        last = best.turns[boundary]
        cut = Turn(last.role, last.first, [item for item in last.items if item[0] < count])
        turns = [*best.turns[:boundary], cut]
        ids = {block["id"] for turn in turns for _, _, block in turn.blocks_of("tool_use")}
        markers = [marker for marker in best.markers if marker[0] < count]
        return Resumed(count, turns, boundary, ids, markers)
