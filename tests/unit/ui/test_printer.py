"""Folding a -p run's events into its result: the kept answer and how the run ended."""

from __future__ import annotations

import pytest

from app.model.events import (
    AssistantText,
    AttemptDiscarded,
    Event,
    RequestFinished,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from app.model.provider import Usage
from app.ui.printer import Limits, RunResult, event_to_json


def folded(*events: Event) -> RunResult:
    result = RunResult(limits=Limits(max_turns=3, max_output_tokens=1000))
    for event in (TurnStarted("hi"), *events):
        result.take(event)
    return result


def done() -> RequestFinished:
    return RequestFinished(Usage(input=10, output=5), 1, 100, model="house-model")


def test_a_discarded_attempt_is_never_part_of_the_answer() -> None:
    result = folded(
        AssistantText("half an ans"),
        AttemptDiscarded("half an ans", "the stream was cut"),
        AssistantText("Let me look."),
        done(),
        AssistantText("again half"),
        AttemptDiscarded("again half", "the stream was cut"),
        TurnFailed("the stream was cut again", "stream_cut"),
    )
    assert result.answer == "Let me look." and result.discarded == 2
    assert result.verdict().subtype == "error"


@pytest.mark.parametrize(
    ("final", "subtype", "says"),
    [
        (TurnFinished("all done", "end_turn"), "success", None),
        (TurnFinished("half of it", "max_tokens"), "error_max_tokens", "1,000 tokens"),
        (TurnFinished("", "max_turns"), "error_max_turns", "after 3 model requests"),
        (TurnFinished("  ", "end_turn"), "error_empty", "answered nothing"),
    ],
)
def test_how_the_turn_ended_decides_the_verdict(
    final: TurnFinished, subtype: str, says: str | None
) -> None:
    verdict = folded(AssistantText(final.text), done(), final).verdict()
    assert verdict.subtype == subtype
    if says is None:
        assert verdict.error is None
    else:
        assert verdict.error is not None and says in verdict.error


def test_an_unpriced_local_model_costs_nothing_in_the_result_and_the_stream() -> None:
    result = RunResult(local=True)
    result.take(done())
    assert result.cost_usd == 0.0
    assert RunResult().cost_usd == 0.0  # before any request
    elsewhere = RunResult()
    elsewhere.take(done())
    assert elsewhere.cost_usd is None
    assert event_to_json(done(), local=True)["cost_usd"] == 0.0


def test_a_discard_is_its_own_stream_json_event() -> None:
    assert event_to_json(AttemptDiscarded("half", "cut")) == {
        "type": "discarded",
        "text": "half",
        "reason": "cut",
    }
