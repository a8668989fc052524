"""Folding a -p run's events: guardrail counts, attempts, the fallback answer."""

from __future__ import annotations

from lull.model.events import (
    AssistantText,
    AttemptFinished,
    AttemptStarted,
    Event,
    GuardrailTriggered,
    RequestFinished,
    ToolStarted,
    TurnFinished,
)
from lull.model.messages import ToolCall
from lull.model.provider import Usage
from lull.ui.print_result import Limits, RunResult


def folded(*events: Event) -> RunResult:
    result = RunResult(limits=Limits(max_turns=3, max_output_tokens=1000))
    for event in events:
        result.take(event)
    return result


def done() -> RequestFinished:
    return RequestFinished(Usage(input=10, output=5), 1, 100, model="m")


def test_guardrail_actions_are_counted_by_kind_and_reason() -> None:
    result = folded(
        GuardrailTriggered("rollback", "…", "refusal"),
        GuardrailTriggered("rollback", "…", "empty"),
        GuardrailTriggered("rollback", "…", "empty"),
        GuardrailTriggered("duplicate", "…"),
        GuardrailTriggered("continuation", "…", "prefill"),
        ToolStarted(ToolCall("c", "read_file", {}), "a", ("file_path -> path",)),
    )
    counts = result.guardrail_counts()
    assert counts["rollbacks"] == 3 and counts["duplicates"] == 1
    assert counts["continuations"] == 1 and counts["repairs"] == 1
    assert counts["doom_loops"] == counts["repetitions"] == counts["tool_retries"] == 0
    assert counts["rollback_reasons"] == {"empty": 2, "refusal": 1}


def test_a_guardrail_stop_is_its_own_error_subtype() -> None:
    detail = "stopped a loop: the model made the same call 3 times in a row: glob(*)"
    verdict = folded(TurnFinished("", "doom_loop", detail)).verdict()
    assert (verdict.subtype, verdict.error) == ("error_doom_loop", detail)
    assert folded(TurnFinished("", "rollbacks", "x")).verdict().subtype == "error_rollbacks"


def test_each_attempt_starts_the_answer_afresh_and_is_listed() -> None:
    result = folded(
        AttemptStarted(1, 2, "s1"),
        AssistantText("looking around"),
        done(),
        TurnFinished("", "max_turns"),
        AttemptFinished(1, "s1", "max_turns", "incomplete", "Failure type: incomplete", "x"),
        AttemptStarted(2, 2, "s2"),
        AssistantText("The answer."),
        done(),
        TurnFinished("The answer.", "end_turn"),
        AttemptFinished(2, "s2", "answered", None, "", "The answer."),
    )
    assert result.answer == "The answer." and result.verdict().subtype == "success"
    assert result.num_requests == 2
    assert result.attempts_json() == [
        {
            "attempt": 1,
            "session_id": "s1",
            "outcome": "max_turns",
            "failure_type": "incomplete",
            "summary": "Failure type: incomplete",
        },
        {
            "attempt": 2,
            "session_id": "s2",
            "outcome": "answered",
            "failure_type": None,
            "summary": "",
        },
    ]


def test_without_a_final_answer_the_pool_gives_a_fallback() -> None:
    result = folded(
        AttemptStarted(1, 2, "s1"),
        TurnFinished("", "max_turns"),
        AttemptFinished(1, "s1", "max_turns", "incomplete", "…", "It is probably 42."),
        AttemptStarted(2, 2, "s2"),
        TurnFinished("", "doom_loop", "stopped a loop"),
        AttemptFinished(2, "s2", "doom_loop", "blocked", "", ""),
    )
    verdict = result.verdict()
    assert verdict.subtype == "fallback" and result.answer == "It is probably 42."
    assert verdict.error is not None and "2 attempts ended without a final answer" in verdict.error


def test_a_failed_request_is_an_error_not_a_fallback() -> None:
    from lull.model.events import TurnFailed

    result = folded(
        AttemptStarted(1, 1, "s1"),
        TurnFailed("bad key", "auth"),
        AttemptFinished(1, "s1", "failed", None, "", "partial thoughts"),
    )
    assert result.verdict().subtype == "error"
