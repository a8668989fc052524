"""Counting what the test process does, through Python's audit hooks (PEP 578): which
connections it opens and which names it looks up, in any thread."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

NETWORK_EVENTS = frozenset({"socket.connect", "socket.getaddrinfo"})

_recorders: list[list[tuple[str, tuple[Any, ...]]]] = []
_lock = threading.Lock()
_installed = False


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _recorders and event in NETWORK_EVENTS:  # cheap for every other event
        for recorder in list(_recorders):
            recorder.append((event, args))


@contextmanager
def network_attempts() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Every connection and name lookup made while the block runs, as (event, arguments):
    ``("socket.connect", (socket, address))``, ``("socket.getaddrinfo", (host, port, …))``.
    An audit hook cannot be removed, so one is installed for the process, the first time."""
    global _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True
    recorded: list[tuple[str, tuple[Any, ...]]] = []
    _recorders.append(recorded)
    try:
        yield recorded
    finally:
        _recorders.remove(recorded)


def connected_ports(attempts: list[tuple[str, tuple[Any, ...]]]) -> list[int]:
    """The ports of the ``socket.connect`` attempts among ``attempts``, in order."""
    ports = []
    for event, args in attempts:
        address = args[1]
        if event == "socket.connect" and isinstance(address, tuple):
            ports.append(int(address[1]))
    return ports
