"""Watching real process groups in tests: who runs, holding the loop in a start, cleaning up."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

CANCEL_DEADLINE = 20.0
"""Seconds a cancelled command may take to stop: far more than a busy machine needs to kill it,
far less than the 120 s the tests' commands would run on their own."""


def live_pids_in_group(pgid: int) -> list[int]:
    """Non-zombie processes of group ``pgid``, as ps sees them."""
    ps = subprocess.run(["ps", "-eo", "pid=,pgid=,stat="], capture_output=True, text=True)
    pids = []
    for line in ps.stdout.splitlines():
        pid, group, state = line.split()[:3]
        if int(group) == pgid and not state.startswith("Z"):
            pids.append(int(pid))
    return pids


def child_pids() -> set[int]:
    """The processes this test process started (running or not yet reaped), ``ps`` aside."""
    ps = subprocess.run(
        ["ps", "-o", "pid=,comm=", "--ppid", str(os.getpid())], capture_output=True, text=True
    )
    rows = (line.split() for line in ps.stdout.splitlines())
    return {int(pid) for pid, name in rows if name != "ps"}


async def step_until_a_child_starts(before: set[int], steps: int = 100) -> None:
    """Let the event loop run one step at a time until a process not in ``before`` exists:
    the moment asyncio has started it but not yet handed it to whoever asked."""
    for _ in range(steps):
        await asyncio.sleep(0)
        if child_pids() - before:
            return
    raise AssertionError(f"no process started in {steps} steps of the loop")


def block_until_written(path: Path, timeout: float = 10.0) -> str:
    """Wait for ``path`` *without* letting the event loop run: a busy loop, as under load."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.002)
    raise AssertionError(f"{path} never appeared")


async def wait_for_text(
    path: Path, gave_up: Callable[[], bool] = lambda: False, timeout: float = 60.0
) -> str:
    """The text a command wrote to ``path``, once it is there (the loop runs meanwhile); fails
    at once if ``gave_up()`` (the command's task ended without writing it)."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()):
        if gave_up() or time.monotonic() > deadline:
            raise AssertionError(f"{path} was never written")
        await asyncio.sleep(0.01)
    return path.read_text().strip()


async def wait_until_gone(pgid: int, timeout: float = 10.0) -> None:
    """Wait until group ``pgid`` has no live process; fail naming the survivors."""
    deadline = time.monotonic() + timeout
    while live_pids_in_group(pgid):
        if time.monotonic() > deadline:
            raise AssertionError(f"still running in group {pgid}: {live_pids_in_group(pgid)}")
        await asyncio.sleep(0.02)


def sigkill_group(pgid: int) -> None:
    """Clean up after a failed test: SIGKILL whatever is left of group ``pgid``."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


async def cancel_and_see_the_group_gone(task: asyncio.Task[object], pgid: int, what: str) -> None:
    """Cancel ``task`` (which started the group ``pgid``), check the cancel returned promptly
    instead of waiting for ``what`` to end, and that the whole group is gone; the group is
    killed in any case."""
    try:
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=CANCEL_DEADLINE)
        assert done, f"the cancel waited for the {what} to end instead of stopping it"
        with pytest.raises(asyncio.CancelledError):
            await task
        await wait_until_gone(pgid)
    finally:
        sigkill_group(pgid)
