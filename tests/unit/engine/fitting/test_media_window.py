"""The media window over a long session on the scripted provider: old images are cleared only
when the prompt cache is rewritten anyway or has gone cold, never once per new image."""

from __future__ import annotations

from lull.engine.fitting.restore import restore_context
from lull.model.edits import ClearMedia
from lull.model.messages import Image, Text
from lull.providers.scripted import ScriptedProvider
from tests.images import png_image
from tests.support import AgentFactory, Clock

CLEARED_LINES = ("[Old image cleared: ", "[Old inline media cleared: ")
"""The media window's line, and idle cleanup's (the tool-results rule) for the oldest images."""


def sent_images(provider: ScriptedProvider) -> tuple[int, int]:
    """(images, cleared-image lines) in the last request."""
    parts = [p for m in provider.requests[-1].messages for p in m.parts]
    kept = sum(isinstance(p, Image) for p in parts)
    cleared = sum(isinstance(p, Text) and p.text.startswith(CLEARED_LINES) for p in parts)
    return kept, cleared


async def turn(agent: object, prompt: str, *images: Image) -> None:
    from lull.engine.loop.agent import Agent

    assert isinstance(agent, Agent)
    _ = [e async for e in agent.run_turn(prompt, images)]


async def test_images_accumulate_on_a_warm_cache_and_go_when_it_is_cold(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    clock = Clock()
    agent = make_agent(clock=clock, media_keep=2)
    for number in range(6):  # a screenshot a minute: the cache stays warm
        await turn(agent, f"screenshot {number}", png_image())
        clock.advance_minutes(1)
    media = [e for e in agent.session.edits if isinstance(e, ClearMedia)]
    assert media == []  # never one rewrite per new image on a warm cache
    assert sent_images(provider) == (6, 0)

    clock.advance_minutes(10)  # the 5-minute cache has gone cold
    await turn(agent, "and now?", png_image())
    media = [e for e in agent.session.edits if isinstance(e, ClearMedia)]
    # idle cleanup (tool-results rule) took the oldest image at the same moment, one rewrite
    assert len(media) == 1 and len(media[0].images) in (4, 5)
    assert sent_images(provider) == (2, 5)  # the newest two messages with images keep them

    for number in range(3):  # warm again: no further rewrites
        await turn(agent, f"more {number}", png_image())
        clock.advance_minutes(1)
    assert len([e for e in agent.session.edits if isinstance(e, ClearMedia)]) == 1
    assert sent_images(provider) == (5, 5)


async def test_the_window_joins_a_rewrite_that_happens_anyway(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    from lull.context.idle import IdlePolicy

    clock = Clock()
    idle = IdlePolicy(thinking_threshold_minutes=2.0, tool_results_threshold_minutes=-1)
    agent = make_agent(clock=clock, media_keep=1, idle=idle, cache_ttl="1h")
    from lull.providers.scripted import ScriptedReply

    for number in range(3):
        provider.script(ScriptedReply(text="seen", thinking="looking closely " * 20))
        await turn(agent, f"shot {number}", png_image())
        clock.advance_minutes(1)
    assert not any(isinstance(e, ClearMedia) for e in agent.session.edits)
    clock.advance_minutes(3)  # idle cleanup clears thinking (a rewrite), the 1h cache is warm
    await turn(agent, "again", png_image())
    kinds = [e.kind for e in agent.session.edits]
    assert kinds == ["clear_thinking", "clear_media"]
    assert sent_images(provider) == (1, 3)


async def test_a_restore_is_not_undone_by_the_next_request(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    clock = Clock()
    agent = make_agent(clock=clock, media_keep=1)
    await turn(agent, "one", png_image())
    await turn(agent, "two", png_image())
    clock.advance_minutes(10)
    await turn(agent, "three")
    assert sent_images(provider) == (1, 1)
    outcome = restore_context(agent.fitter, agent.shape(), "clears", clock())
    assert outcome.edit is not None
    await turn(agent, "four")
    assert sent_images(provider) == (2, 0)  # restored, and it stays so
    clock.advance_minutes(10)  # a later cold gap applies the window again
    await turn(agent, "five")
    assert sent_images(provider) == (1, 1)
