from __future__ import annotations

import asyncio
import dataclasses
import subprocess
from pathlib import Path

import pytest

from lull.tools.base import ToolContext
from lull.tools.builtin.shell import ShellTool
from tests.processes import (
    CANCEL_DEADLINE,
    block_until_written,
    cancel_and_see_the_group_gone,
    child_pids,
    live_pids_in_group,
    sigkill_group,
    step_until_a_child_starts,
    wait_for_text,
    wait_until_gone,
)
from tests.unit.tools.helpers import Call


async def test_reports_exit_code_stdout_and_stderr(call: Call) -> None:
    out = await call("run_shell_command", command="echo out; echo err >&2; exit 3")
    assert not out.is_error
    assert out.content == "Exit code: 3\nstdout:\nout\nstderr:\nerr"
    assert out.metadata["exit_code"] == 3


async def test_runs_in_the_workspace_with_stdin_closed(call: Call, workspace: Path) -> None:
    out = await call("run_shell_command", command="pwd; cat; echo done")
    assert out.content == f"Exit code: 0\nstdout:\n{workspace}\ndone"


async def test_no_output_is_said(call: Call) -> None:
    assert (await call("run_shell_command", command="true")).content == "Exit code: 0\n(no output)"


async def test_timeout_kills_the_whole_process_group(call: Call, workspace: Path) -> None:
    """The command would run 120 s: it ends (with its group) when its 1 s are up."""
    running = call(
        "run_shell_command", command="echo $$ > pgid; sleep 120 & sleep 120", timeout_seconds=1
    )
    try:
        out = await asyncio.wait_for(running, CANCEL_DEADLINE)
        assert out.is_error
        assert out.content.startswith("Command timed out after 1 s")
        assert live_pids_in_group(int((workspace / "pgid").read_text())) == []
    finally:
        if (workspace / "pgid").exists():
            sigkill_group(int((workspace / "pgid").read_text()))


async def test_cancellation_kills_the_whole_process_group(
    ctx: ToolContext, workspace: Path
) -> None:
    tool = ShellTool()
    task = asyncio.create_task(tool.run({"command": "echo $$ > pgid; sleep 120 & sleep 120"}, ctx))
    pgid = int(await wait_for_text(workspace / "pgid", task.done))
    try:
        assert len(live_pids_in_group(pgid)) >= 2
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=CANCEL_DEADLINE)
        assert done, "the cancel waited for the command to end instead of stopping it"
        with pytest.raises(asyncio.CancelledError):
            await task
        assert live_pids_in_group(pgid) == []
    finally:
        sigkill_group(pgid)


async def test_a_cancel_while_bash_is_starting_kills_the_whole_group(
    ctx: ToolContext, workspace: Path
) -> None:
    """The classic race: bash and its children run, but asyncio has not handed the process to
    the tool yet (its pipes are being connected) when the cancel comes. Deterministic: the
    event loop is held right after bash appears until bash has started its children."""
    before = child_pids()
    tool = ShellTool()
    command = "sleep 120 & echo $$ > pgid; sleep 120"
    task = asyncio.create_task(tool.run({"command": command}, ctx))
    await step_until_a_child_starts(before)
    pgid = int(block_until_written(workspace / "pgid"))  # the tool has not seen the process
    assert not task.done()
    await cancel_and_see_the_group_gone(task, pgid, "command")


async def test_a_cancel_at_any_step_of_the_loop_kills_the_whole_group(
    ctx: ToolContext, workspace: Path
) -> None:
    """Cancelled after 0, 1, 2 … steps of the event loop (before, during and after the start),
    every command stops at once: each group that started is gone when the cancel returns."""
    tool = ShellTool()
    try:
        for steps in range(40):
            command = f"echo $$ > pgid.{steps}; sleep 120 & sleep 120"
            task = asyncio.create_task(tool.run({"command": command}, ctx))
            for _ in range(steps):
                await asyncio.sleep(0)
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=CANCEL_DEADLINE)
            assert done, f"cancelled after {steps} steps, the command was not stopped"
            with pytest.raises(asyncio.CancelledError):
                await task
        # on a loaded machine no step count may reach bash's start: one more command is
        # cancelled only once it has surely started, so "after the start" is always covered
        task = asyncio.create_task(tool.run({"command": "echo $$ > pgid.last; sleep 120"}, ctx))
        await _until_written(workspace / "pgid.last")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        started = _groups_started(workspace)
        assert started, "no command got far enough to start"
        for pgid in started:
            await wait_until_gone(pgid)
    finally:
        for pgid in _groups_started(workspace):
            sigkill_group(pgid)


async def _until_written(path: Path) -> None:
    """Let the loop run until ``path`` has content (a generous deadline fails the test)."""
    deadline = asyncio.get_running_loop().time() + CANCEL_DEADLINE
    while not (path.exists() and path.read_text().strip()):
        assert asyncio.get_running_loop().time() < deadline, f"{path.name} was never written"
        await asyncio.sleep(0.01)


def _groups_started(workspace: Path) -> list[int]:
    return [int(path.read_text()) for path in sorted(workspace.glob("pgid.*")) if path.read_text()]


async def test_background_process_holding_the_pipe_does_not_hang_the_call(
    ctx: ToolContext, workspace: Path
) -> None:
    """The background sleep would hold the pipes 120 s: the call ends after the pipe grace."""
    tool = ShellTool(pipe_grace=0.2)
    running = tool.run({"command": "echo $$ > pgid; sleep 120 & echo started"}, ctx)
    try:
        out = await asyncio.wait_for(running, CANCEL_DEADLINE)
        assert "Exit code: 0" in out.content and "started" in out.content
        assert "background processes kept stdout/stderr open" in out.content
    finally:
        sigkill_group(int((workspace / "pgid").read_text()))


async def test_detached_background_process_is_left_running(
    ctx: ToolContext, workspace: Path
) -> None:
    tool = ShellTool(pipe_grace=0.2)
    out = await tool.run({"command": "sleep 30 > /dev/null 2>&1 & echo $! > bg.pid"}, ctx)
    assert "background processes" not in out.content
    pid = int((workspace / "bg.pid").read_text())
    try:
        assert Path(f"/proc/{pid}").exists()
    finally:
        subprocess.run(["kill", str(pid)], check=False)


async def test_long_output_is_capped_and_saved(call: Call, ctx: ToolContext) -> None:
    small = dataclasses.replace(ctx, max_output_chars=2000)
    out = await call("run_shell_command", small, command="seq 1 20000")
    assert len(out.content) <= 2000
    assert out.content.startswith("Exit code: 0\nstdout:\n1\n2\n")
    assert out.content.endswith("19999\n20000")
    assert "full output saved to" in out.content
    saved = (ctx.output_dir / "call_1.txt").read_text()
    assert saved.count("\n") == 20001


async def test_killed_by_signal_is_explained(call: Call) -> None:
    out = await call("run_shell_command", command="kill -TERM $$")
    assert out.content.startswith("Exit code: -15 (killed by signal SIGTERM)")


async def test_bad_timeout_and_empty_command_are_errors(call: Call) -> None:
    too_long = await call("run_shell_command", command="true", timeout_seconds=601)
    assert too_long.is_error and "timeout_seconds must be more than 0 and at most 600" in (
        too_long.content
    )
    empty = await call("run_shell_command", command="  ")
    assert empty.is_error and empty.content == "run_shell_command: command is empty"


async def test_spawn_failure_is_an_error(call: Call, ctx: ToolContext, tmp_path: Path) -> None:
    gone = dataclasses.replace(ctx, workspace=tmp_path / "missing")
    out = await call("run_shell_command", gone, command="true")
    assert out.is_error and out.content.startswith("run_shell_command: could not start bash")
