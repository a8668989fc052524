"""What the HTTP layer should send back for one request, independent of the API."""

from __future__ import annotations

import json
import math
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

#: Tool-call arguments are streamed in about this many fragments.
ARGUMENT_PIECES = 3


@dataclass
class Outcome:
    """A JSON response (``body``) or an SSE stream (``frames``), with an optional stream fault.

    With ``cut_after`` set the socket is closed after that many frames (no terminating chunk);
    with ``error_frame`` set that frame is sent after ``cut_after`` frames and the stream ends;
    ``hold`` and the delays are the reply's (:class:`~tests.fakes.script.Reply`).
    """

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    frames: list[bytes] | None = None
    frame_delay: float = 0.0
    first_delay: float = 0.0
    hold: threading.Event | None = None
    cut_after: int | None = None
    error_frame: bytes | None = None
    usage: dict[str, Any] | None = None
    error: str | None = None
    content_type: str = "text/event-stream; charset=utf-8"
    """What a streamed answer says it is (a server's HTML page says ``text/html``)."""


def new_id(prefix: str, length: int = 24) -> str:
    """A random id such as ``msg_…``, ``toolu_…``, ``call_…``, ``req_…``."""
    return prefix + uuid.uuid4().hex[:length]


def json_frame(data: Any, event: str | None = None) -> bytes:
    """One SSE frame: optional ``event:`` line, a ``data:`` line, blank line."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def split_text(text: str, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (at least one piece, maybe empty)."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def split_in(text: str, parts: int) -> list[str]:
    """``text`` in about ``parts`` non-empty pieces (for tool-argument fragments)."""
    if not text:
        return []
    return split_text(text, math.ceil(len(text) / max(1, parts)))
