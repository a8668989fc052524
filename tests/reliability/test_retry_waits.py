"""A long retry-after is never slept through in silence: a wait past the limit stops the
turn saying when to try again, and every wait longer than two seconds is shown as it starts
(summary requests too). Waits go to a recording ``sleep``, never a real one."""

from __future__ import annotations

from pathlib import Path

from lull.model.events import (
    AssistantText,
    ContextEdited,
    Notice,
    TurnFailed,
    TurnFinished,
)
from lull.model.provider import (
    Completed,
    Retrying,
)
from lull.providers.retry import clock_time
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests.fakes import FakeServer, Reply
from tests.reliability.helpers import (
    FILLER_OK,
    NOW,
    Waits,
    answer,
    anthropic_on,
    long_history,
    notices,
    server_agent,
)
from tests.support import run, summary_of


async def test_retry_after_an_hour_stops_the_turn_and_says_when(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.fail_next(status=429, retry_after_ms=None, headers={"retry-after": "3600"})
    agent = server_agent(anthropic_on(fake, waits), workspace, tmp_path)
    events = await run(agent, "hi")
    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.kind == "rate_limit"
    when = clock_time(NOW + 3600, NOW)
    assert f"rate limited; retry after {when} (60 min)" in failed.message
    assert waits.slept == []  # nothing was slept through
    assert [e.status for e in fake.journal] == [429]  # and nothing sent again
    assert agent.session.transcript[-1].role == "user"  # the session is intact


async def test_every_wait_longer_than_two_seconds_is_shown_as_it_happens(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.fail_next(status=429, retry_after_ms=3000)
    fake.script(Reply(text="made it"))
    agent = server_agent(anthropic_on(fake, waits), workspace, tmp_path)
    events = await run(agent, "hi")
    [notice] = [e for e in events if isinstance(e, Notice)]
    assert notice.text == (
        "Anthropic rate limit reached (429 rate_limit_error): Rate limit exceeded; "
        "retrying in 3 s (retry 1 of 2)"
    )
    shown = events.index(notice)
    assert shown < next(i for i, e in enumerate(events) if isinstance(e, AssistantText))
    assert waits.slept == [3.0]
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "made it"

    fake.fail_next(status=529, retry_after_ms=10)  # a short wait is logged, not shown
    fake.script(Reply(text="again"))
    events = await run(agent, "more")
    assert notices(events) == [] and waits.slept == [3.0, 0.01]
    assert isinstance(events[-1], TurnFinished)


def test_the_provider_announces_each_wait_and_the_sdk_never_retries_on_its_own(
    fake: FakeServer, waits: Waits
) -> None:
    import asyncio

    fake.fail_next(status=529, retry_after_ms=None, times=2)
    fake.script(Reply(text="third time"))
    events = asyncio.run(answer(anthropic_on(fake, waits)))
    retries = [e for e in events if isinstance(e, Retrying)]
    assert [(r.attempt, r.max_retries) for r in retries] == [(1, 2), (2, 2)]
    assert waits.slept == [0.5, 1.0]  # the SDKs' backoff (no jitter here)
    assert [e.headers["x-stainless-retry-count"] for e in fake.journal] == ["0", "0", "0"]
    assert isinstance(events[-1], Completed)


async def test_a_wait_during_a_summary_request_is_shown_too(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider(long_history(4, 300))
    agent = server_agent(provider, workspace, tmp_path, guardrails=FILLER_OK)
    for turn in range(4):
        await run(agent, f"question {turn}")
    wait = Retrying("Anthropic is overloaded (529 overloaded_error)", 8.0, 1, 2)
    provider.script(ScriptedReply(text=summary_of("summary"), retrying=(wait,)))
    events = [event async for event in agent.compact()]
    assert notices(events)[1] == (
        "Anthropic is overloaded (529 overloaded_error); retrying in 8 s (retry 1 of 2)"
    )
    assert any(isinstance(e, ContextEdited) for e in events)
