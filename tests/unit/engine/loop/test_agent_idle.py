"""Idle cleanup in the turn loop, end to end on the scripted provider: the defects a side-by-side
run against the reference found (a later gap after a failed or cancelled request, a restore,
keep 0, tiny results, old images) stay fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.context.idle import IdlePolicy
from lull.engine.fitting.restore import restore_context
from lull.model.edits import ClearThinking, ClearToolResults
from lull.model.events import ContextEdited, Event, TurnFailed
from lull.model.messages import (
    Image,
    Message,
    Text,
    cleared_image_text,
    is_cleared_text,
)
from lull.model.provider import ModelRequest, ProviderError, Usage
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, Clock, run

CONTENT = "a line of the file that is worth keeping around\n" * 20
FAILURE = ProviderError("server_error", "the server failed (500)")


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = ["a.txt", "b.txt", "c.txt"]
    for name in names:
        (workspace / name).write_text(f"{name}\n{CONTENT}")
    return names


def reads(names: list[str], thinking: str = "let me think about this " * 10) -> list[ScriptedReply]:
    """One read per file, then an answer; every reply thinks."""
    steps = [
        ScriptedReply(thinking=thinking, tool_calls=(ScriptedCall("read_file", {"path": n}),))
        for n in names
    ]
    return [*steps, ScriptedReply(thinking=thinking, text="all read")]


def edits(events: list[Event], kind: type) -> list[object]:
    return [e.edit for e in events if isinstance(e, ContextEdited) and isinstance(e.edit, kind)]


def cleared_results(request: ModelRequest) -> int:
    return sum(1 for m in request.messages for r in m.tool_results if is_cleared_text(r.content))


async def test_a_failed_request_does_not_block_a_later_longer_gap(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    agent = make_agent(
        clock=clock, idle=IdlePolicy(tool_results_threshold_minutes=60, tool_results_num_to_keep=1)
    )
    provider.script(*reads(files))
    await run(agent, "read the files")

    clock.advance_minutes(10)  # thinking is cleared (5 min), tool results not yet (60 min)
    provider.script(ScriptedReply(error=FAILURE))
    failed = await run(agent, "now what?")
    assert isinstance(failed[-1], TurnFailed)
    assert edits(failed, ClearThinking) and not edits(failed, ClearToolResults)

    clock.advance_minutes(120)  # no response since: the same gap, now past 60 minutes
    provider.script(ScriptedReply(text="fine"))
    later = await run(agent, "back after two hours")
    assert edits(later, ClearToolResults)  # main skipped every plan after the failed request
    assert not edits(later, ClearThinking)  # never twice for one gap
    assert cleared_results(provider.requests[-1]) == 2


async def test_a_cancelled_turn_does_not_block_a_later_longer_gap(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    agent = make_agent(
        clock=clock, idle=IdlePolicy(tool_results_threshold_minutes=60, tool_results_num_to_keep=1)
    )
    provider.script(*reads(files))
    await run(agent, "read the files")

    clock.advance_minutes(10)
    provider.script(ScriptedReply(text="a slow answer that is interrupted", delay=0.01))
    turn = agent.run_turn("now what?")
    async for event in turn:
        if isinstance(event, ContextEdited):
            break  # Ctrl+C right after the cleanup, before any response
    await turn.aclose()

    clock.advance_minutes(120)
    provider.replies.clear()
    later = await run(agent, "back")
    assert edits(later, ClearToolResults) and not edits(later, ClearThinking)


async def test_one_kind_is_cleared_once_per_gap_even_after_failures(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    agent = make_agent(clock=clock, idle=IdlePolicy(tool_results_num_to_keep=1))
    provider.script(*reads(files))
    await run(agent, "read the files")
    clock.advance_minutes(65)
    provider.script(ScriptedReply(error=FAILURE), ScriptedReply(error=FAILURE))
    first = await run(agent, "one")
    assert edits(first, ClearToolResults) and edits(first, ClearThinking)
    clock.advance_minutes(120)
    second = await run(agent, "two")
    assert not any(isinstance(e, ContextEdited) for e in second)


async def test_a_restore_does_not_block_a_later_longer_gap(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    agent = make_agent(
        clock=clock, idle=IdlePolicy(tool_results_threshold_minutes=60, tool_results_num_to_keep=1)
    )
    provider.script(*reads(files))
    await run(agent, "read the files")
    clock.advance_minutes(10)
    provider.script(ScriptedReply(error=FAILURE))
    assert edits(await run(agent, "hm"), ClearThinking)
    outcome = restore_context(agent.fitter, agent.shape(), "clears", clock())
    assert outcome.edit is not None  # the thinking is back

    clock.advance_minutes(2)  # right after a restore: nothing is cleared again
    provider.script(ScriptedReply(error=FAILURE))
    assert not any(isinstance(e, ContextEdited) for e in await run(agent, "again"))

    clock.advance_minutes(120)
    provider.script(ScriptedReply(text="fine"))
    later = await run(agent, "back after two hours")
    assert edits(later, ClearToolResults)  # main: the restore blocked this for good
    assert edits(later, ClearThinking)  # the restore started the thinking gap afresh
    assert cleared_results(provider.requests[-1]) == 2


async def test_keep_zero_clears_every_old_result(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    agent = make_agent(clock=clock, idle=IdlePolicy(tool_results_num_to_keep=0))
    provider.script(*reads(files))
    await run(agent, "read the files")
    clock.advance_minutes(61)
    provider.script(ScriptedReply(text="ok"))
    events = await run(agent, "back")
    edit = edits(events, ClearToolResults)[0]
    assert isinstance(edit, ClearToolResults) and edit.kept == 0 and len(edit.call_ids) == 3
    assert cleared_results(provider.requests[-1]) == 3


async def test_a_tiny_newest_result_takes_no_keep_slot(
    provider: ScriptedProvider, make_agent: AgentFactory, files: list[str], workspace: Path
) -> None:
    (workspace / "tiny.txt").write_text("ok\n")
    clock = Clock()
    agent = make_agent(clock=clock, idle=IdlePolicy(tool_results_num_to_keep=1))
    provider.script(*reads([*files, "tiny.txt"]))
    await run(agent, "read the files")
    clock.advance_minutes(61)
    provider.script(ScriptedReply(text="ok"))
    await run(agent, "back")
    results = [r for m in provider.requests[-1].messages for r in m.tool_results]
    kept = [r.content for r in results if not is_cleared_text(r.content)]
    assert len(kept) == 2  # c.txt keeps the slot; tiny.txt is never cleared and takes none
    assert any("c.txt" in text for text in kept) and any("ok" in text for text in kept)


async def test_old_images_are_cleared_with_the_tool_results_rule(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    clock = Clock()
    agent = make_agent(clock=clock, idle=IdlePolicy(tool_results_num_to_keep=1))
    for n in range(3):
        image = Image("image/png", "iVBORw0KGgo" * 50 + str(n))
        agent.session.add(Message("user", (Text(f"screenshot {n}"), image)))
        agent.session.add(Message("assistant", (Text(f"I see screenshot {n}"),), origin="model"))
    agent.session.record_response(clock(), Usage(input=1), provider.model)
    clock.advance_minutes(61)
    provider.script(ScriptedReply(text="ok"))
    events = await run(agent, "back")
    edit = edits(events, ClearToolResults)[0]
    assert isinstance(edit, ClearToolResults) and len(edit.images) == 2
    sent = provider.requests[-1].messages
    images = [p for m in sent for p in m.parts if isinstance(p, Image)]
    placeholders = [p for m in sent for p in m.parts if p == Text(cleared_image_text("image/png"))]
    assert len(images) == 1 and images[0].data.endswith("2") and len(placeholders) == 2
