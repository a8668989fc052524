"""Process groups started and stopped whole: SIGTERM, a grace period, then SIGKILL.

A command runs in a group of its own (:func:`start_group`), so stopping it stops everything
it started. A cancel can come at any moment, even while the process is being started: asyncio
has the process then but has not handed it over, and cancelling that start would kill the
leader alone and wait until its children close the pipes. :func:`start_group` lets the start
finish and stops the whole group instead; :func:`stop_group` cannot be cut short by a
further cancel.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

_PROC = Path("/proc")


def _live_in_proc(pgid: int) -> bool | None:
    """Whether a non-zombie process is in group ``pgid`` per /proc; None without /proc."""
    try:
        names = os.listdir(_PROC)
    except OSError:
        return None
    for name in names:
        if not name.isdigit():
            continue
        try:
            stat = (_PROC / name / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False


def group_alive(pgid: int) -> bool:
    """True while a live process (zombies waiting to be reaped do not count) is in ``pgid``."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    live = _live_in_proc(pgid)
    return True if live is None else live


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to the group, ignoring a group that is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


KILL_SETTLE_SECONDS = 2.0
"""How long :func:`kill_group` waits for a SIGKILLed group to be gone (a process stuck in
the kernel may take longer; it is not waited for past this)."""


def terminate_group(pgid: int) -> None:
    """SIGTERM the group now (a group already gone is no error)."""
    _signal_group(pgid, signal.SIGTERM)


async def kill_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, wait up to ``grace`` seconds, then SIGKILL whatever is left and wait
    (up to :data:`KILL_SETTLE_SECONDS`) until the kernel has ended it: SIGKILL is delivered
    when a process next runs, which on a busy machine is not at once."""
    terminate_group(pgid)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and group_alive(pgid):
        await asyncio.sleep(0.02)
    _signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + KILL_SETTLE_SECONDS
    while time.monotonic() < deadline and group_alive(pgid):
        await asyncio.sleep(0.01)


async def start_group(
    program: str, *args: str, grace: float, **options: Any
) -> asyncio.subprocess.Process:
    """``asyncio.create_subprocess_exec(program, *args, **options)`` as the leader of a new
    process group. Cancelled while starting, the start is
    let finish and the whole group is stopped (``grace``: see :func:`stop_group`) before the
    cancel goes on. ``OSError`` (no such program, no such directory) is raised as it comes."""
    starting: asyncio.Future[asyncio.subprocess.Process] = asyncio.ensure_future(
        asyncio.create_subprocess_exec(program, *args, start_new_session=True, **options)
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        await _finish(starting)
        if not starting.cancelled() and starting.exception() is None:
            await stop_group(starting.result().pid, grace)
        raise


async def stop_group(pgid: int, grace: float) -> None:
    """Stop group ``pgid`` because its command was cancelled: SIGTERM at once (before anything
    is awaited, so even a loop that is shutting down sends it), then SIGKILL whatever is left
    after ``grace`` seconds. A further cancel does not cut the wait short."""
    terminate_group(pgid)
    await _finish(asyncio.ensure_future(kill_group(pgid, grace)))


async def _finish(future: asyncio.Future[Any]) -> None:
    """Wait until ``future`` is done, whatever cancels come meanwhile (the caller goes on with
    the cancel it is handling)."""
    while not future.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({future})
