"""Benchmark: a 300-turn scripted session through compression, against the fake server.

Each turn the model reads one file and answers, so the context grows by ~1-2k
tokens a turn and passes the compression threshold of a 200k window several
times. Prints, per context size, the milliseconds lull spends per request on
token counting and the context pipeline (view, truncation, estimate, decision;
requests that ran a summary call are listed apart), then the number of
compressions and the tokens sent. Asserts nothing.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.engine.loop.agent import Agent
from lull.model.edits import Summary
from lull.model.events import RequestFinished
from lull.model.provider import ModelRequest, Usage
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.script import last_user_text
from tests.support import build_agent, run, summary_of

TURNS = 300
FILE_SIZES = [1_500, 3_000, 4_500, 6_000, 7_500]
BUCKETS = [(0, 50_000), (50_000, 100_000), (100_000, 150_000), (150_000, 10**9)]
SUMMARY = summary_of("Work through the files.") + "\n" + "- f.py: read\n" * 40


@dataclass
class Replay:
    """What one replay measured."""

    samples: list[tuple[int, float]] = field(default_factory=list)  # (context tokens, ms)
    with_summary: list[float] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    summary_usage: Usage = field(default_factory=Usage)
    requests: int = 0
    compressions: int = 0
    max_context: int = 0
    seconds: float = 0.0


def respond(body: dict[str, Any]) -> Reply:
    """Summaries when asked; otherwise read a file, then answer after its result."""
    if SUMMARY_MARKER in last_user_text(body):
        return Reply(text=SUMMARY, chunk_size=4096)
    last = body["messages"][-1]
    content = last.get("content")
    if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
        return Reply(text="Noted; the file looks fine.", chunk_size=4096)
    turn = len(body["messages"])
    return Reply(tool_calls=[ToolUse("read_file", {"path": f"f{turn % len(FILE_SIZES)}.py"})])


def _hook(agent: Agent, replay: Replay, seen: list[int]) -> Any:
    def record(request: ModelRequest, index: int) -> None:
        summaries = sum(isinstance(e, Summary) for e in agent.session.edits)
        context = agent.fitter.calibration.estimate(agent.fitter.sent_local)
        if summaries != seen[0]:
            seen[0] = summaries
            replay.with_summary.append(agent.pipeline_ms)
        else:
            replay.samples.append((context, agent.pipeline_ms))
        replay.max_context = max(replay.max_context, context)

    return record


async def replay(root: Path) -> Replay:
    """Run the 300 turns once."""
    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    for index, size in enumerate(FILE_SIZES):
        (workspace / f"f{index}.py").write_text(("value = compute(x)  # filler\n" * size)[:size])
    result = Replay()
    with FakeServer() as fake:
        fake.default_reply = Reply(respond=respond)
        agent = build_agent(fake, workspace, root, "anthropic")
        agent.request_hooks.append(_hook(agent, result, [0]))
        started = time.monotonic()
        for turn in range(TURNS):
            for event in await run(agent, f"turn {turn}: look at the next file"):
                if not isinstance(event, RequestFinished):
                    continue
                result.requests += 1
                if event.purpose == "summary":
                    result.summary_usage = result.summary_usage + event.usage
                else:
                    result.usage = result.usage + event.usage
        result.seconds = time.monotonic() - started
        result.compressions = sum(isinstance(e, Summary) for e in agent.session.edits)
        agent.session.close()
    return result


def _row(label: str, values: list[float]) -> str:
    if not values:
        return f"{label:>14}{'-':>10}{'-':>10}{'-':>10}{0:>10}"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return (
        f"{label:>14}{statistics.median(ordered):>10.3f}{p95:>10.3f}{ordered[-1]:>10.3f}"
        f"{len(values):>10}"
    )


def main() -> None:
    """Print the per-request pipeline cost by context size, compressions and tokens sent."""
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(replay(Path(tmp)))
    print(f"compression benchmark: {TURNS} turns, claude 200k window, anthropic fake")
    print("context pipeline + token counting per request (ms)")
    print(f"{'context':>14}{'median':>10}{'p95':>10}{'max':>10}{'requests':>10}")
    for low, high in BUCKETS:
        label = f"{low // 1000}k-{high // 1000}k" if high < 10**9 else f">= {low // 1000}k"
        print(_row(label, [ms for tokens, ms in result.samples if low <= tokens < high]))
    print(_row("+summary call", result.with_summary))
    sent = result.usage.prompt_tokens
    cached = result.usage.cache_read / sent if sent else 0.0
    print(f"requests: {result.requests} ({result.compressions} compressions)")
    print(f"largest prompt: ~{result.max_context:,} tokens")
    print(f"prompt tokens sent: {sent:,} ({cached:.0%} read from cache)")
    print(f"summary requests: {result.summary_usage.prompt_tokens:,} prompt tokens")
    print(f"wall time: {result.seconds:.1f} s")


if __name__ == "__main__":
    main()
