"""Benchmark: tokens sent with idle cleanup on and off over a scripted session with idle gaps.

The real engine and provider run against the fake server with an injected
clock, so an afternoon of gaps replays in seconds. Prints a table; asserts nothing.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lull.context.idle import IdlePolicy
from lull.model.events import RequestFinished
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import Clock, build_agent, run

# (minutes idle before the turn, files read in the turn)
WORKLOAD: list[tuple[float, int]] = [(0, 4), (2, 3), (70, 4), (3, 2), (12, 3), (95, 4), (1, 2)]
FILE_SIZES = [2_000, 6_000, 12_000, 20_000]

ON = IdlePolicy()
OFF = IdlePolicy(thinking_threshold_minutes=-1, tool_results_threshold_minutes=-1)


@dataclass
class Outcome:
    """Prompt tokens per request of one replay."""

    per_request: list[int]

    @property
    def total(self) -> int:
        """All prompt tokens sent."""
        return sum(self.per_request)


def _script(fake: FakeServer) -> None:
    counter = 0
    for _gap, reads in WORKLOAD:
        for _ in range(reads):
            name = f"f{counter % len(FILE_SIZES)}.py"
            counter += 1
            fake.script(
                Reply(
                    thinking="Let me look at the code. " * 20,
                    tool_calls=[ToolUse("read_file", {"path": name})],
                )
            )
        fake.script(Reply(thinking="Summarising. " * 20, text="Here is what I found."))


async def replay(policy: IdlePolicy, root: Path) -> Outcome:
    """Run the workload once under ``policy``."""
    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    for index, size in enumerate(FILE_SIZES):
        (workspace / f"f{index}.py").write_text(("x = 1  # filler\n" * (size // 16))[:size])
    clock = Clock()
    with FakeServer() as fake:
        _script(fake)
        agent = build_agent(fake, workspace, root, "anthropic", clock=clock, idle=policy)
        sizes: list[int] = []
        for turn, (gap, _reads) in enumerate(WORKLOAD):
            clock.advance_minutes(gap)
            events = await run(agent, f"turn {turn}: keep going")
            sizes += [e.usage.prompt_tokens for e in events if isinstance(e, RequestFinished)]
        agent.session.close()
    return Outcome(sizes)


def main() -> None:
    """Print per-request and total prompt tokens, cleanup off vs on."""
    with tempfile.TemporaryDirectory() as tmp:
        off = asyncio.run(replay(OFF, Path(tmp) / "off"))
        on = asyncio.run(replay(ON, Path(tmp) / "on"))
    print("idle cleanup benchmark: prompt tokens per request (anthropic, fake server)")
    print(f"{'request':>8}{'cleanup off':>14}{'cleanup on':>14}{'saved':>10}")
    for index, (a, b) in enumerate(zip(off.per_request, on.per_request, strict=True), 1):
        print(f"{index:>8}{a:>14,}{b:>14,}{a - b:>10,}")
    saving = 1 - on.total / off.total if off.total else 0.0
    print(f"{'total':>8}{off.total:>14,}{on.total:>14,}{off.total - on.total:>10,}")
    print(f"saving: {saving:.1%} of prompt tokens with lull's default idle policy")


if __name__ == "__main__":
    main()
