"""Benchmark: what the OS sandbox adds to a command (issue 27: at most 50 ms over the same
command unsandboxed).

Runs ``true`` (a command that costs nothing itself) through the shell tool, unsandboxed and
sandboxed, alternating, and prints the medians, their difference and its ratio to the 50 ms
goal. Prints figures; asserts nothing about time (a busy machine must not fail CI). Without a
sandbox here it says what is missing.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from lull.tools.base import ToolContext
from lull.tools.builtin.shell import ShellTool
from lull.tools.process.sandbox.policy import SandboxPolicy
from lull.tools.process.sandbox.probe import probe
from lull.tools.process.sandbox.sandbox import Sandbox

GOAL_MS = 50.0
"""The most the sandbox may add to one command."""


async def _timed(tool: ShellTool, ctx: ToolContext, command: str) -> float:
    started = time.perf_counter()
    out = await tool.run({"command": command}, ctx)
    elapsed = time.perf_counter() - started
    assert out.metadata["exit_code"] == 0, out.content
    return elapsed


async def _measure(workspace: Path, runs: int) -> tuple[list[float], list[float]]:
    availability = probe()
    sandbox = Sandbox(SandboxPolicy(workspace, (workspace,)), availability)
    plain = ToolContext(workspace, workspace / ".out")
    boxed = ToolContext(workspace, workspace / ".out", sandbox=sandbox)
    tool = ShellTool()
    await _timed(tool, boxed, "true")  # first run makes the sandbox's directory
    plain_times, boxed_times = [], []
    for _ in range(runs):
        plain_times.append(await _timed(tool, plain, "true"))
        boxed_times.append(await _timed(tool, boxed, "true"))
    return plain_times, boxed_times


def main(runs: int = 20) -> None:
    """Print the medians, the overhead and its ratio to the goal."""
    print("sandbox overhead (run_shell_command `true`, medians of", runs, "runs)")
    availability = probe()
    if not availability.ready:
        print(f"  skipped: {availability.missing}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        plain, boxed = asyncio.run(_measure(Path(tmp).resolve(), runs))
    plain_ms, boxed_ms = statistics.median(plain) * 1000, statistics.median(boxed) * 1000
    overhead = boxed_ms - plain_ms
    print(f"  unsandboxed {plain_ms:7.1f} ms")
    print(f"  sandboxed   {boxed_ms:7.1f} ms  ({availability.mechanism})")
    print(
        f"  overhead    {overhead:7.1f} ms = {overhead / GOAL_MS:.2f}x the goal "
        f"(at most {GOAL_MS:.0f} ms; ratio sandboxed/unsandboxed {boxed_ms / plain_ms:.2f})"
    )


if __name__ == "__main__":
    main()
