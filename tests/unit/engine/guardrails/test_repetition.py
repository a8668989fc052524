"""An answer that keeps repeating itself is cut off early: rolled back once, then reported."""

from __future__ import annotations

from collections.abc import AsyncIterator

from lull.engine.guardrails.repetition import RepetitionDetector, find_repetition
from lull.model.events import AttemptDiscarded, GuardrailTriggered, TurnFinished
from lull.model.provider import ModelRequest, StreamEvent, TextDelta
from lull.providers.scripted import ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

LOOPING = "I will now check the file again.\n" * 4000  # ~130,000 characters


class CountingProvider(ScriptedProvider):
    """Counts the deltas a consumer actually took from each stream."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[int] = []

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        inner = super().stream(request)
        self.taken.append(0)

        async def counted() -> AsyncIterator[StreamEvent]:
            async for event in inner:
                if isinstance(event, TextDelta):
                    self.taken[-1] += 1
                yield event

        return counted()


def test_a_repeated_line_is_found_at_the_end_of_the_text() -> None:
    found = find_repetition("Intro that is fine.\n" + "the same line\n" * 200)
    assert found is not None and found.unit == "the same line\n" and found.repeats >= 85
    assert find_repetition("a" * 2000) is not None
    assert find_repetition("word " * 100) is None  # 500 characters: too short to call
    assert find_repetition(" ".join(f"item {n}" for n in range(1000))) is None


def test_the_detector_checks_every_so_often_and_ignores_normal_prose() -> None:
    detector = RepetitionDetector()
    prose = "Every sentence here differs from the last one, number {n}. "
    assert all(detector.feed(prose.format(n=n)) is None for n in range(400))
    looping = RepetitionDetector()
    found = [looping.feed("tick tock ") for _ in range(400)]
    first = next(i for i, f in enumerate(found) if f is not None)
    assert first * len("tick tock ") < 1500  # fired soon after 1,200 repeating characters


async def test_a_looping_answer_is_cut_off_early_and_asked_again(make_agent: AgentFactory) -> None:
    provider = CountingProvider()
    provider.script(ScriptedReply(text=LOOPING), ScriptedReply(text="The file is fine."))
    agent = make_agent()
    agent.provider = provider
    agent.fitter.provider = provider
    events = await run(agent, "check the file")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "The file is fine."
    assert provider.taken[0] < 200  # of ~8,000 chunks
    discarded = [e for e in events if isinstance(e, AttemptDiscarded)]
    assert len(discarded) == 1 and "repeating" in discarded[0].reason
    notices = [e for e in events if isinstance(e, GuardrailTriggered)]
    assert [e.kind for e in notices] == ["repetition"] and "I will now check" in notices[0].text
    assert "repeating" in provider.requests[1].messages[-1].text  # the corrective note
    assert [r.reason for r in agent.session.record.rollbacks] == ["repetition"]
    assert [m.text for m in agent.session.transcript] == ["check the file", "The file is fine."]


async def test_a_second_looping_answer_is_reported(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    provider.script(ScriptedReply(text=LOOPING), ScriptedReply(thinking=LOOPING))
    agent = make_agent()
    events = await run(agent, "check")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == "repetition"
    assert "kept repeating itself" in finished.detail and "again after a retry" in finished.detail
    assert len(provider.requests) == 2
    assert agent.session.transcript[-1].role == "user"
