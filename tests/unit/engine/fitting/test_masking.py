"""Masking inside a long turn, through a real agent: a batch of older results becomes recall
pointers before a request once that pays (here: the cache has gone cold between steps)."""

from __future__ import annotations

from pathlib import Path

from lull.context.masking import MaskingPolicy
from lull.model.events import ContextEdited
from lull.model.provider import ModelRequest
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import FakeTime, build_agent, run


async def test_a_long_turn_masks_older_results_when_the_cache_is_cold(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    for n in range(6):
        (workspace / f"f{n}.txt").write_text(f"line {n} of a long file\n" * 200)
    clock = FakeTime(fake)
    policy = MaskingPolicy(enabled=True, keep=2, min_requests=3)
    agent = build_agent(fake, workspace, tmp_path, clock=clock, masking=policy)

    def slow_step(_request: ModelRequest, _index: int) -> None:
        clock.advance_minutes(10)  # each step outlives the five-minute cache

    agent.request_hooks.append(slow_step)
    reads = [Reply(tool_calls=[ToolUse("read_file", {"path": f"f{n}.txt"})]) for n in range(6)]
    fake.script(*reads, Reply(text="read them all"))
    events = await run(agent, "read every file")

    masked = [
        e
        for e in events
        if isinstance(e, ContextEdited) and getattr(e.edit, "reason", "") == "masking"
    ]
    assert masked and "with recall pointers" in masked[0].description
    last = fake.requests[-1]["messages"]
    first_result = last[2]["content"][0]
    assert "recall id" in str(first_result["content"])  # f0's read is a pointer now
    newest = last[-1]["content"][0]
    assert "line 5 of a long file" in str(newest["content"])


async def test_masking_is_off_by_default(fake: FakeServer, workspace: Path, tmp_path: Path) -> None:
    for n in range(10):
        (workspace / f"f{n}.txt").write_text("x\n" * 500)
    agent = build_agent(fake, workspace, tmp_path)
    reads = [Reply(tool_calls=[ToolUse("read_file", {"path": f"f{n}.txt"})]) for n in range(10)]
    fake.script(*reads, Reply(text="done"))
    events = await run(agent, "read")
    assert not any(isinstance(e, ContextEdited) for e in events)
