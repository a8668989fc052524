"""Noticing that the terminal went away: SIGHUP, a hung-up tty, a failed write."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
from collections.abc import Iterator

import pytest

from lull.ui.shared.hangup import GuardedOutput, HangupWatch, detach, tty_hung_up


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal: (the terminal's end, the end lull would use)."""
    master, slave = os.openpty()
    try:
        yield master, slave
    finally:
        for fd in (master, slave):
            with contextlib.suppress(OSError):  # a test may have closed it
                os.close(fd)


def test_a_tty_whose_terminal_closed_has_hung_up(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    assert not tty_hung_up(slave)
    os.close(master)
    assert tty_hung_up(slave)


@pytest.fixture(autouse=True)
def sighup_disposition() -> Iterator[None]:
    """Each test leaves SIGHUP as it found it (firing the watch ignores it for good)."""
    previous = signal.getsignal(signal.SIGHUP)
    yield
    signal.signal(signal.SIGHUP, previous)


async def test_the_watch_fires_once_when_the_tty_hangs_up(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    spare = os.dup(slave)  # detach() points the watched descriptor at /dev/null
    calls: list[str] = []
    watch = HangupWatch(lambda: calls.append("gone"), ttys=[spare], poll_seconds=0.01)
    watch.start()
    try:
        await asyncio.sleep(0.05)
        assert calls == []
        os.close(master)
        for _ in range(200):
            if calls:
                break
            await asyncio.sleep(0.01)
        assert calls == ["gone"] and watch.fired
        assert os.read(spare, 10) == b""  # now /dev/null: reading ends at once
        watch.fire()
        assert calls == ["gone"]
    finally:
        watch.stop()
        os.close(spare)


async def test_sighup_fires_the_watch() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as a terminal's processes have
    fired = asyncio.Event()
    watch = HangupWatch(fired.set, ttys=[], poll_seconds=None)
    try:
        watch.start()
        os.kill(os.getpid(), signal.SIGHUP)
        await asyncio.wait_for(fired.wait(), 5)
    finally:
        watch.stop()
        signal.signal(signal.SIGHUP, previous)
    assert watch.fired


async def test_after_firing_a_late_sighup_is_ignored_not_fatal() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    watch = HangupWatch(lambda: None, ttys=[], poll_seconds=None)
    watch.start()
    watch.fire()  # seen another way (EIO, a hung-up tty) before the signal came
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    os.kill(os.getpid(), signal.SIGHUP)  # with the default action this would end the test run


async def test_an_ignored_sighup_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        watch = HangupWatch(lambda: None, ttys=[], poll_seconds=None)
        watch.start()
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGHUP)
        await asyncio.sleep(0.05)
        assert not watch.fired
        watch.stop()
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_detach_points_descriptors_at_dev_null() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the other end went away, as a vanished terminal's does
    try:
        with pytest.raises(BrokenPipeError):  # the control: writing fails before detach
            os.write(write_end, b"fails")
        detach([write_end])
        assert os.write(write_end, b"vanishes") == len(b"vanishes")  # no EPIPE, no block
        null, now = os.stat(os.devnull), os.fstat(write_end)
        assert (now.st_dev, now.st_ino, now.st_rdev) == (null.st_dev, null.st_ino, null.st_rdev)
    finally:
        os.close(write_end)


class Broken(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")


def test_guarded_output_drops_everything_after_the_first_failure() -> None:
    lost: list[bool] = []
    output = GuardedOutput(Broken(), lambda: lost.append(True))
    assert output.write("frame") == len("frame")
    output.write("another")
    output.flush()
    assert lost == [True] and output.lost and not output.isatty()
    fine = io.StringIO()
    assert GuardedOutput(fine, lambda: None).write("ok") == 2 and fine.getvalue() == "ok"
