"""When the terminal goes away: SIGHUP, or a terminal that hung up under lull.

A killed terminal (a closed tmux session, a dropped SSH connection) sends SIGHUP to the
processes on it, unless their parent ignored the signal (``nohup``, some session
managers). Then only the terminal itself tells: a read gives EOF, a write fails with EIO
and ``poll()`` reports POLLHUP. :class:`HangupWatch` watches both and calls its callback
once; the front end then stops the turn (every tool call gets a result), closes the
session file and exits with :data:`HANGUP_EXIT`. The vanished terminal's descriptors are
pointed at ``/dev/null`` first, so nothing written while leaving can fail or block.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import threading
from collections.abc import Callable, Iterable
from typing import TextIO

HANGUP_EXIT = 128 + signal.SIGHUP  # the shell's code for "ended by SIGHUP"
POLL_SECONDS = 1.0
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def hangup_ignored() -> bool:
    """Whether SIGHUP was ignored when lull started (``nohup``): lull then keeps ignoring it."""
    return signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


def terminal_fds() -> tuple[int, ...]:
    """Which of stdin, stdout and stderr are a terminal now (check before it can go away)."""
    found = []
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            if os.isatty(fd):
                found.append(fd)
    return tuple(found)


def tty_hung_up(fd: int) -> bool:
    """Whether the terminal on ``fd`` has hung up (or ``fd`` is no longer open)."""
    poller = select.poll()
    try:
        poller.register(fd, select.POLLIN)
        ready = poller.poll(0)
    except (OSError, ValueError):
        return True
    return any(mask & _GONE for _, mask in ready)


def detach(fds: Iterable[int]) -> None:
    """Point ``fds`` at ``/dev/null``: later writes vanish, reads see end of input."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.dup2(null, fd)
    finally:
        os.close(null)


class HangupWatch:
    """Calls ``on_hangup`` once, in the event loop, when the terminal goes away.

    ``ttys`` are the descriptors that are the terminal (default: :func:`terminal_fds`);
    they are checked every ``poll_seconds`` (None: only SIGHUP counts, as for ``-p``) and
    detached before ``on_hangup`` runs. SIGHUP is caught unless it was ignored at start.
    """

    def __init__(
        self,
        on_hangup: Callable[[], None],
        ttys: Iterable[int] | None = None,
        *,
        poll_seconds: float | None = POLL_SECONDS,
    ) -> None:
        self.on_hangup = on_hangup
        self.ttys = tuple(terminal_fds() if ttys is None else ttys)
        self.poll_seconds = poll_seconds
        self.fired = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._signal = False

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Begin watching (call from the event loop's thread)."""
        self._loop = loop or asyncio.get_running_loop()
        if not hangup_ignored():
            try:
                self._loop.add_signal_handler(signal.SIGHUP, self.fire)
                self._signal = True
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread: the terminal check still works
        self._schedule()

    def stop(self) -> None:
        """Stop watching."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._signal and self._loop is not None:
            with contextlib.suppress(RuntimeError, ValueError):
                self._loop.remove_signal_handler(signal.SIGHUP)
            self._signal = False

    def fire(self) -> None:
        """The terminal is gone: detach from it and tell the front end (once)."""
        if self.fired:
            return
        self.fired = True
        self.stop()
        _ignore_later_hangups()
        detach(self.ttys)
        self.on_hangup()

    def gone(self) -> bool:
        """Whether the terminal is gone (whether or not :meth:`fire` ran)."""
        return self.fired or any(tty_hung_up(fd) for fd in self.ttys)

    def check(self) -> bool:
        """Whether the terminal is gone (:meth:`fire` is called if it just went)."""
        if not self.fired and self.gone():
            self.fire()
        return self.fired

    def _schedule(self) -> None:
        if self.poll_seconds is not None and self.ttys and self._loop is not None:
            self._timer = self._loop.call_later(self.poll_seconds, self._poll)

    def _poll(self) -> None:
        self._timer = None
        if not self.check():
            self._schedule()


def _ignore_later_hangups() -> None:
    """Ignore SIGHUP from now on: lull is leaving cleanly, and a late SIGHUP (the terminal
    can send it after its end was seen another way) must not kill it half-way through
    saving (removing the loop's handler alone would restore the default action)."""
    with contextlib.suppress(ValueError, OSError):  # not the main thread: nothing to do
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


class GuardedOutput:
    """A text stream that stops writing (and calls ``on_lost`` once) at the first error."""

    def __init__(self, stream: TextIO, on_lost: Callable[[], None]) -> None:
        self._stream = stream
        self._on_lost = on_lost
        self._lock = threading.Lock()
        self.lost = False

    def write(self, text: str) -> int:
        """Write ``text`` (or drop it once the terminal is gone)."""
        if not self.lost:
            try:
                return self._stream.write(text)
            except OSError:
                self._lose()
        return len(text)

    def flush(self) -> None:
        """Flush (nothing once the terminal is gone)."""
        if not self.lost:
            try:
                self._stream.flush()
            except OSError:
                self._lose()

    def fileno(self) -> int:
        """The terminal's file descriptor."""
        return self._stream.fileno()

    def isatty(self) -> bool:
        """Whether the stream is (still) a terminal."""
        return not self.lost and self._stream.isatty()

    def _lose(self) -> None:
        with self._lock:
            first, self.lost = not self.lost, True
        if first:
            self._on_lost()
