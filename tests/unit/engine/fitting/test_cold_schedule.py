"""Cold-cache scheduling on the scripted provider: a compression waits while the cache is warm
and runs on the user's return after it expired, from the cold line (half the window)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.context.idle import IdlePolicy
from lull.model.edits import Summary
from lull.model.events import ContextEdited, Event
from lull.providers.scripted import ScriptedProvider
from tests.support import AgentFactory, Clock, run
from tests.unit.engine.fitting.test_fitter import FILE_TEXT, Reader

WINDOW = 6_000
NO_IDLE = IdlePolicy(-1, -1)  # only the schedule changes the context here


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = [f"f{i:02d}.txt" for i in range(8)]
    for name in names:
        (workspace / name).write_text(f"{name}\n{FILE_TEXT}")
    return names


def summaries(events: list[Event]) -> list[Summary]:
    return [e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, Summary)]


async def test_compression_waits_on_a_warm_cache_and_runs_on_return_after_expiry(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    reader = Reader(files, reads=5)
    provider.respond = reader
    agent = make_agent(clock=clock, context_window=WINDOW, idle=NO_IDLE)
    first = await run(agent, "read the files")
    budget = agent.fitter.budget(agent.shape())
    size = agent.estimate_context()
    assert budget.cold <= size < budget.trigger, (budget.cold, size, budget.trigger)
    assert not summaries(first)

    reader.reads = 0
    clock.advance_minutes(2)  # the cache is warm: past the cold line, no compression
    assert agent.cache_warm_until() is not None
    assert not summaries(await run(agent, "anything else?"))

    clock.advance_minutes(10)  # the five-minute cache has expired: compress now
    assert agent.cache_warm_until() is None
    back = await run(agent, "back from a break")
    assert summaries(back) and reader.summary_requests
    assert agent.estimate_context() < size


async def test_without_prompt_caching_the_plain_full_line_applies(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    reader = Reader(files, reads=5)
    provider.respond = reader
    agent = make_agent(clock=clock, context_window=WINDOW, idle=NO_IDLE, prompt_caching=False)
    await run(agent, "read the files")
    reader.reads = 0
    clock.advance_minutes(10)
    assert agent.cache_warm_until() is None
    assert not summaries(await run(agent, "back from a break"))  # under 0.8: nothing to gain


async def test_a_summary_request_on_a_warm_cache_reads_the_cached_conversation(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    reader = Reader(files, reads=3)
    provider.respond = reader
    agent = make_agent(clock=clock, idle=NO_IDLE)
    await run(agent, "read the files")
    last = provider.requests[-1]
    [e async for e in agent.compact()]  # right after the turn: the cache is warm
    [warm] = reader.summary_requests
    assert warm.prompt_caching
    assert list(warm.messages[: len(last.messages)]) == list(last.messages)  # the same prefix

    reader.reads = 3
    await run(agent, "read them again")
    clock.advance_minutes(10)  # cold: the summary sends the older part without cache markers
    [e async for e in agent.compact()]
    cold = reader.summary_requests[-1]
    assert not cold.prompt_caching
