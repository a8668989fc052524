"""Compression planning as pure functions: budget arithmetic, split points, guard, fitting."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from lull.context.compress_plan import (
    OMITTED_NOTE,
    CompressionGuard,
    CompressionPolicy,
    closed_boundaries,
    decide,
    emergency_target,
    fit_head,
    make_budget,
    plan_emergency_clear,
    plan_split,
    split_points,
    with_margin,
)
from lull.model.messages import (
    CLEARED_TOOL_RESULT,
    Message,
    Text,
    ToolResult,
    cleared_result_text,
    is_cleared_text,
)
from tests.unit.context.builders import assistant, call, result, results, tool_step, user

POLICY = CompressionPolicy()


def _size(message: Message) -> int:
    """A simple size: 1 per message plus characters / 10."""
    total = 1
    for part in message.parts:
        if isinstance(part, Text):
            total += len(part.text) // 10
        elif isinstance(part, ToolResult):
            total += len(part.content) // 10
    return total


def _sizes(view: Sequence[Message]) -> list[int]:
    return [_size(m) for m in view]


# --- budget ----------------------------------------------------------------------------------


def test_budget_for_a_large_window() -> None:
    budget = make_budget(200_000, POLICY, max_output_tokens=8192)
    assert budget.reserve == 8192
    assert budget.input_limit == 191_808
    assert budget.trigger == 160_000
    assert budget.keep_tokens == int(0.3 * 191_808)
    assert budget.summary_tokens == 8192
    assert budget.growth == 10_000


def test_budget_for_a_small_window_keeps_room_for_the_prompt() -> None:
    budget = make_budget(8000, POLICY, max_output_tokens=8192)
    assert budget.reserve == 2000  # at most a quarter of the window for the answer
    assert budget.input_limit == 6000
    assert budget.trigger == 6400
    assert budget.keep_tokens == 1800
    assert budget.summary_tokens == 1000
    assert budget.growth == 400


def test_the_limit_check_includes_the_safety_margin() -> None:
    budget = make_budget(8000, POLICY, max_output_tokens=8192)
    assert with_margin(5714) == 6000 and not budget.over_limit(5714)
    assert budget.over_limit(5715)
    assert budget.percent(4000) == 50


def test_threshold_and_keep_fraction_come_from_the_policy() -> None:
    budget = make_budget(100_000, CompressionPolicy(threshold=0.5, keep_recent_fraction=0.1), 4096)
    assert budget.trigger == 50_000
    assert budget.keep_tokens == int(0.1 * (100_000 - 4096))


# --- decision and guard ----------------------------------------------------------------------


def test_compression_starts_at_the_threshold() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    assert decide(79_999, budget, guard, overflow=False) == "none"
    assert decide(80_000, budget, guard, overflow=False) == "compress"


def test_a_compression_that_freed_little_waits_for_growth() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    guard.succeeded(after=85_000, budget=budget)  # still over the trigger
    assert decide(86_000, budget, guard, overflow=False) == "none"
    assert decide(90_000, budget, guard, overflow=False) == "compress"  # grew by 5 %
    guard.succeeded(after=30_000, budget=budget)  # freed plenty: no wait
    assert decide(80_000, budget, guard, overflow=False) == "compress"


def test_when_waiting_but_over_the_limit_an_emergency_clear_runs() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    guard.nothing_to_do(92_000)
    assert decide(93_000, budget, guard, overflow=False) == "emergency"


def test_growth_counts_from_the_smallest_size_seen() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    guard.failed(95_000)
    guard.seen(60_000)  # an emergency clear shrank the context
    assert decide(80_000, budget, guard, overflow=False) == "compress"


def test_three_failures_pause_until_reset() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    assert not guard.failed(85_000)
    assert not guard.failed(85_000)
    assert guard.failed(85_000)  # the third one pauses
    assert not guard.failed(85_000)  # and says so only once
    assert decide(200_000, budget, guard, overflow=False) == "emergency"
    assert decide(85_000, budget, guard, overflow=False) == "none"
    assert decide(85_000, budget, guard, overflow=True) == "emergency"
    guard.reset()
    assert decide(85_000, budget, guard, overflow=False) == "compress"


def test_a_success_resets_the_failure_count() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    guard.failed(85_000)
    guard.failed(85_000)
    guard.succeeded(20_000, budget)
    assert not guard.failed(85_000)


def test_a_provider_overflow_compresses_even_while_waiting() -> None:
    budget = make_budget(100_000, POLICY, 4096)
    guard = CompressionGuard()
    guard.nothing_to_do(50_000)
    assert decide(50_100, budget, guard, overflow=True) == "compress"


def test_emergency_target_is_well_under_limit_and_trigger() -> None:
    budget = make_budget(8000, POLICY, 8192)
    target = emergency_target(budget)
    assert target == min(round(6000 / 1.05 - 0.5), 6400) - 4 * 400
    assert not budget.over_limit(target) and target < budget.trigger


# --- split points ----------------------------------------------------------------------------


def test_boundaries_inside_a_tool_step_are_not_closed() -> None:
    view = [user("go"), *tool_step("c1"), assistant(Text("done"))]
    assert closed_boundaries(view) == [True, True, False, True, True]
    assert split_points(view) == [1, 3]


def test_parallel_results_in_separate_messages_stay_with_their_calls() -> None:
    view = [
        user("go"),
        assistant(call("c1"), call("c2")),
        results(result("c1")),
        results(result("c2")),
        assistant(Text("done")),
    ]
    assert split_points(view) == [1, 4]


def test_split_prefers_the_user_turn_keeping_most_within_budget() -> None:
    view = [
        user("first " * 50),
        *tool_step("c1", content="x" * 800),
        assistant(Text("one")),
        user("second " * 50),
        *tool_step("c2", content="x" * 800),
        assistant(Text("two")),
        user("third"),
        *tool_step("c3", content="x" * 300),
    ]
    sizes = _sizes(view)
    assert plan_split(view, sizes, keep_tokens=100) == 8  # the last user turn
    assert plan_split(view, sizes, keep_tokens=10_000) == 4  # everything after the first turn


def test_a_long_tool_loop_is_split_between_steps() -> None:
    view = [user("do it")]
    for index in range(10):
        view += tool_step(f"c{index}", content="x" * 500)
    sizes = _sizes(view)
    split = plan_split(view, sizes, keep_tokens=160)
    assert split is not None
    assert view[split].role == "assistant" and view[split].tool_calls
    assert sum(sizes[split:]) <= 160
    assert closed_boundaries(view)[split]


def test_when_even_the_last_step_is_too_big_the_smallest_tail_is_kept() -> None:
    view = [user("go"), *tool_step("c1", content="x" * 5000), *tool_step("c2", content="y" * 9000)]
    assert plan_split(view, _sizes(view), keep_tokens=10) == 3


def test_no_split_when_the_head_would_be_only_an_earlier_summary() -> None:
    summary = Message("user", (Text("summary so far"),), id="edit_1", origin="summary")
    view = [summary, *tool_step("c1")]
    assert split_points(view) == []
    assert plan_split(view, _sizes(view), keep_tokens=0) is None


def test_the_head_must_end_on_a_transcript_message() -> None:
    view = [user("a", "m1"), assistant(Text("b"), msg_id="m2"), user("c", "m3")]
    assert split_points(view, transcript_ids={"m1", "m3"}) == [1]


def test_a_head_too_small_is_not_worth_a_summary() -> None:
    view = [user("hi"), assistant(Text("hello")), user("x" * 5000)]
    assert plan_split(view, _sizes(view), keep_tokens=100, min_head_tokens=50) is None


# --- fitting the summary input ---------------------------------------------------------------


def test_fit_head_clears_oldest_tool_outputs_first() -> None:
    head = [user("go"), *tool_step("c1", content="a" * 3000), *tool_step("c2", content="b" * 300)]
    fitted = fit_head(head, _size, limit=100)
    contents = [r.content for m in fitted for r in m.tool_results]
    assert contents == [cleared_result_text("c1"), "b" * 300]
    assert len(fitted) == len(head)


def test_fit_head_drops_oldest_turns_when_clearing_is_not_enough() -> None:
    head = [
        user("u" * 3000),
        assistant(Text("a" * 3000)),
        user("latest question"),
        assistant(Text("short answer")),
    ]
    fitted = fit_head(head, _size, limit=20)
    assert [m.text for m in fitted] == ["latest question", "short answer"]
    fitted = fit_head([*head[:2], assistant(Text("more"))], _size, limit=5)
    assert fitted[0].text == OMITTED_NOTE and fitted[0].role == "user"


def test_fit_head_returns_the_head_when_it_fits() -> None:
    head = [user("go"), *tool_step("c1")]
    assert fit_head(head, _size, limit=10_000) == head


# --- emergency -------------------------------------------------------------------------------


def test_emergency_clear_takes_the_oldest_outputs_until_enough_is_freed() -> None:
    view = [user("go")]
    for index in range(5):
        view += tool_step(f"c{index}", content="x" * 1000)
    view[2] = results(ToolResult("c0", "read_file", CLEARED_TOOL_RESULT, cleared=True))
    ids, freed = plan_emergency_clear(view, 250, lambda r: len(r.content) // 10)
    assert ids == ["c1", "c2", "c3"] and freed == 300


def test_emergency_clear_reports_when_everything_is_not_enough() -> None:
    view = [user("go"), *tool_step("c1", content="x" * 100)]
    assert plan_emergency_clear(view, 10_000, lambda r: len(r.content)) == (["c1"], 100)


@pytest.mark.parametrize("excess", [0, -5])
def test_nothing_to_clear_when_nothing_is_over(excess: int) -> None:
    view = [user("go"), *tool_step("c1")]
    assert plan_emergency_clear(view, excess, lambda r: 10) == ([], 0)


def test_emergency_clear_goes_by_tier_and_never_takes_errors_or_notes() -> None:
    view = [user("q1"), *tool_step("old", content="x" * 1000)]
    view += [*tool_step("err", content="E" * 1000, error=True)]
    view += [assistant(call("n1", "note", key="k", text="v")), results(result("n1", "note"))]
    view += [user("q2"), *tool_step("mid", content="x" * 1000)]
    view += [user("q3"), *tool_step("new", content="x" * 1000)]
    ids, _ = plan_emergency_clear(view, 10**9, lambda r: len(r.content) // 10)
    assert ids == ["old", "mid", "new"]  # standard first, then the recent (important) ones
    assert plan_emergency_clear(view, 150, lambda r: len(r.content) // 10)[0] == ["old", "mid"]


def test_fit_head_clears_standard_outputs_before_important_ones() -> None:
    head = [user("q1"), *tool_step("old", content="a" * 300)]
    head += [user("q2"), *tool_step("recent", content="b" * 3000)]
    head += [user("q3"), *tool_step("newest", content="c" * 300)]
    fitted = fit_head(head, _size, limit=100)
    contents = {r.call_id: r.content for m in fitted for r in m.tool_results}
    assert is_cleared_text(contents["old"])  # standard, though the smallest
    assert is_cleared_text(contents["recent"]) and contents["newest"] == "c" * 300
