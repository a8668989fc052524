"""Stopping a whole process group: SIGTERM, a grace period, then SIGKILL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

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


def terminate_group(pgid: int) -> None:
    """SIGTERM the group now (a group already gone is no error)."""
    _signal_group(pgid, signal.SIGTERM)


async def kill_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, wait up to ``grace`` seconds, then SIGKILL whatever is left."""
    terminate_group(pgid)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and group_alive(pgid):
        await asyncio.sleep(0.02)
    _signal_group(pgid, signal.SIGKILL)
