"""Injected faults: HTTP errors before a response, and cut/errored SSE streams."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from tests.fakes.errors import WireError, default_message


@dataclass
class HttpFailure:
    """Answer the next ``times`` generation requests with ``status`` instead of a reply
    (``headers`` are sent too, e.g. a bare ``retry-after``)."""

    status: int
    retry_after_ms: int | None = 10
    times: int = 1
    message: str | None = None
    should_retry: bool | None = None
    headers: dict[str, str] | None = None

    def to_error(self) -> WireError:
        """The WireError (with retry headers, then ``headers``) to send for this failure."""
        headers: dict[str, str] = {}
        if self.retry_after_ms is not None:
            headers["retry-after-ms"] = str(self.retry_after_ms)
            headers["retry-after"] = str(math.ceil(self.retry_after_ms / 1000))
        if self.should_retry is not None:
            headers["x-should-retry"] = "true" if self.should_retry else "false"
        headers.update(self.headers or {})
        message = self.message or default_message(self.status)
        return WireError(self.status, message, headers=headers)


@dataclass
class StreamFault:
    """Break the next streamed response after ``after_events`` SSE frames.

    ``kind`` is "cut" (socket closed, no terminating event) or "error" (an SSE error frame
    of ``error_type`` and then close).
    """

    kind: str
    after_events: int
    error_type: str = "overloaded_error"
    message: str = "Overloaded"

    def describe(self) -> str:
        """One line for the journal."""
        if self.kind == "cut":
            return f"stream cut after {self.after_events} events"
        return f"stream error {self.error_type} after {self.after_events} events"


class FaultBook:
    """Thread-safe queues of pending faults, consumed in the order they were added."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: list[HttpFailure] = []
        self._stream_faults: list[StreamFault] = []

    def add_failure(self, failure: HttpFailure) -> None:
        """Queue an HTTP failure (it fires ``failure.times`` times)."""
        if failure.times < 1:
            raise ValueError(f"fail_next: times must be >= 1, got {failure.times}")
        if not 400 <= failure.status <= 599:
            raise ValueError(
                f"fail_next: status must be an HTTP error (400-599), got {failure.status}"
            )
        with self._lock:
            self._failures.append(failure)

    def take_failure(self) -> HttpFailure | None:
        """The failure for this request, if any (decrements its remaining count)."""
        with self._lock:
            if not self._failures:
                return None
            head = self._failures[0]
            head.times -= 1
            if head.times <= 0:
                self._failures.pop(0)
            return head

    def add_stream_fault(self, fault: StreamFault) -> None:
        """Queue a fault for the next streamed response."""
        if fault.after_events < 0:
            raise ValueError(f"after_events must be >= 0, got {fault.after_events}")
        with self._lock:
            self._stream_faults.append(fault)

    def take_stream_fault(self) -> StreamFault | None:
        """The fault for this streamed response, if any."""
        with self._lock:
            return self._stream_faults.pop(0) if self._stream_faults else None

    def clear(self) -> None:
        """Drop every pending fault."""
        with self._lock:
            self._failures.clear()
            self._stream_faults.clear()
