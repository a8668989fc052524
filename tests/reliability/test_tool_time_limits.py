"""How long a tool may take: a catastrophic regex is stopped at the search's time limit
(the event loop stays live) and at once when the turn is cancelled; ``tools.shellTimeoutSeconds``
is the timeout of a shell command that names none."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lull.providers.scripted import ScriptedProvider, ScriptedReply
from lull.tools.base import ToolContext
from lull.tools.builtin.grep_search import GrepSearchTool
from lull.tools.registry import ToolRegistry
from tests.reliability.helpers import (
    call,
    write_user_settings,
)
from tests.support import agent_on, demo_runtime, run

# --- a catastrophic regex in grep_search ----------------------------------------------------------


CATASTROPHIC = "(a+)+$"


@pytest.fixture
def backtracking_file(workspace: Path) -> Path:
    """A line on which ``(a+)+$`` backtracks for longer than anyone will wait."""
    path = workspace / "trap.txt"
    path.write_text("a" * 64 + "b\n")
    return path


async def test_a_catastrophic_regex_returns_an_error_within_the_limit_and_lull_stays_live(
    backtracking_file: Path, ctx_for: Callable[[Path], ToolContext]
) -> None:
    tool = GrepSearchTool(time_limit=1.0, use_ripgrep=False)
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    beating = asyncio.create_task(heartbeat())
    out = await ToolRegistry([tool]).execute(
        "grep_search", {"pattern": CATASTROPHIC}, ctx_for(backtracking_file.parent)
    )
    beating.cancel()
    assert out.is_error  # the limit stopped it (a hung search never returns at all)
    assert out.content.startswith(
        f"grep_search: the search for {CATASTROPHIC!r} took longer than 1 s and was stopped"
    )
    # The event loop ran during the search (Ctrl+C and Esc are handled): a loop blocked
    # until the search returned would not have woken the heartbeat twice.
    assert ticks >= 2


def _search_workers(marker: str) -> list[int]:
    """Live search worker processes whose request names ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if "lull.tools.search.worker" in cmdline and marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the worker")
async def test_cancelling_the_turn_stops_a_runaway_search_at_once(
    tmp_path: Path, backtracking_file: Path
) -> None:
    provider = ScriptedProvider()
    provider.script(call("grep_search", pattern=CATASTROPHIC), ScriptedReply(text="never"))
    workspace = backtracking_file.parent
    tools = ToolRegistry([GrepSearchTool(use_ripgrep=False)])  # the default 30 s limit
    agent = agent_on(provider, workspace, tmp_path, tools=tools, clock=time.time)

    task = asyncio.create_task(run(agent, "search"))
    await _until(lambda: bool(_search_workers(str(workspace))), "the search worker to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (result,) = agent.session.transcript[-1].tool_results
    assert result.is_error and "Cancelled" in result.content  # not the 30 s limit's message
    # Gone long before its 30 s limit could have stopped it.
    await _until(lambda: not _search_workers(str(workspace)), "the worker to end", timeout=20)


async def _until(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Poll ``check`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.02)


@pytest.fixture
def ctx_for(tmp_path: Path) -> Callable[[Path], ToolContext]:
    """A tool context for a workspace."""
    return lambda workspace: ToolContext(workspace=workspace, output_dir=tmp_path / "out")


# --- tools.shellTimeoutSeconds --------------------------------------------------------------------


async def test_the_shell_timeout_setting_kills_a_command_that_names_no_timeout(
    workspace: Path,
) -> None:
    write_user_settings({"tools": {"shellTimeoutSeconds": 1}})
    runner = demo_runtime(workspace, env={}).agent.tools
    assert runner.context.shell_timeout_seconds == 1
    out = await runner.registry.execute(
        "run_shell_command", {"command": "sleep 30"}, runner.context
    )
    # Killed at the setting's 1 s, not after the 30 s the command asked for.
    assert out.is_error and out.content.startswith("Command timed out after 1 s and was killed")
