"""A manual clock that drives the fake server's cache TTLs."""

from __future__ import annotations

import threading

#: Where every FakeClock starts (2023-11-14T22:13:20Z): fixed so runs are reproducible.
DEFAULT_START = 1_700_000_000.0


class FakeClock:
    """Seconds since the epoch that only move when a test calls :meth:`advance`."""

    def __init__(self, start: float = DEFAULT_START) -> None:
        self._now = float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        """Return the current fake time in seconds."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` (must not be negative) and return the new time."""
        if seconds < 0:
            raise ValueError(f"FakeClock.advance: seconds must be >= 0, got {seconds}")
        with self._lock:
            self._now += float(seconds)
            return self._now
