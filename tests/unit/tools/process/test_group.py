"""Process groups started and stopped whole, whenever the cancel comes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lull.tools.process.group import group_alive, start_group, stop_group
from tests.processes import (
    CANCEL_DEADLINE,
    block_until_written,
    cancel_and_see_the_group_gone,
    child_pids,
    sigkill_group,
    step_until_a_child_starts,
)

COMMAND = "sleep 120 & echo $$ > pgid; sleep 120"


async def test_a_cancel_while_the_group_starts_stops_all_of_it(tmp_path: Path) -> None:
    """asyncio has started bash (which has started its children) but not handed it over yet:
    the loop is held there, then the start is cancelled."""
    before = child_pids()
    task = asyncio.create_task(
        start_group("bash", "-c", COMMAND, grace=2.0, cwd=tmp_path, stdout=asyncio.subprocess.PIPE)
    )
    await step_until_a_child_starts(before)
    pgid = int(block_until_written(tmp_path / "pgid"))
    await cancel_and_see_the_group_gone(task, pgid, "command")


async def test_stop_group_kills_what_ignores_sigterm_and_outlasts_a_second_cancel(
    tmp_path: Path,
) -> None:
    """The group ignores SIGTERM, so only the SIGKILL after the grace stops it; the stop is
    cancelled meanwhile (Esc pressed again) and still returns only once the group is gone."""
    command = f"trap '' TERM; {COMMAND}"
    proc = await start_group("bash", "-c", command, grace=0.2, cwd=tmp_path)
    pgid = int(await asyncio.to_thread(block_until_written, tmp_path / "pgid"))
    try:
        assert pgid == proc.pid and group_alive(pgid)
        stopping = asyncio.create_task(stop_group(pgid, 0.2))
        await asyncio.sleep(0)  # the stop starts: SIGTERM, ignored
        assert group_alive(pgid)
        stopping.cancel()
        await asyncio.wait({stopping}, timeout=CANCEL_DEADLINE)
        assert stopping.done() and not group_alive(pgid)
        await proc.wait()
    finally:
        sigkill_group(pgid)


async def test_a_start_that_fails_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        await start_group("bash", "-c", "true", grace=2.0, cwd=tmp_path / "missing")
