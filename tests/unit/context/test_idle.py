"""Idle cleanup planning: the trigger, tool results and the log line."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from lull.context.estimate import estimate_messages_tokens, estimate_tokens
from lull.context.idle import (
    DEFAULT_COMPACTABLE,
    IdlePolicy,
    describe_edit,
    gap_matters,
    gap_starts,
    idle_gap_minutes,
    plan_idle_cleanup,
)
from lull.context.view import build_view
from lull.model.edits import ClearThinking, ClearToolResults, Restore, Summary, Supersede
from lull.model.messages import (
    CLEARED_TOOL_RESULT,
    Message,
    Text,
    ToolResult,
    cleared_result_text,
    is_cleared_text,
)
from tests.unit.context.builders import (
    NOW,
    REF,
    THINKING_ONLY,
    TOOLS_ONLY,
    ago,
    assistant,
    call,
    plan,
    reads,
    result,
    result_by_id,
    results,
    thinking,
    tool_edit,
    tool_step,
    user,
)

# --- the trigger (reference cases 1-6) ------------------------------------------------------


def test_negative_threshold_disables_tool_result_cleanup() -> None:
    policy = IdlePolicy(thinking_threshold_minutes=-1, tool_results_threshold_minutes=-1)
    assert plan(reads("a", "b", "c"), policy, idle=10_000) == []


def test_no_prior_api_completion_means_no_cleanup() -> None:
    assert idle_gap_minutes(None, NOW) is None
    assert plan(reads("a", "b", "c"), idle=None) == []


def test_gap_under_threshold_does_nothing() -> None:
    assert plan(reads("a", "b", "c"), idle=4.9) == []


def test_gap_over_threshold_fires() -> None:
    edits = plan(reads("a", "b", "c"), idle=65)
    assert tool_edit(edits).call_ids == ("a", "b")
    assert tool_edit(edits).gap_minutes == pytest.approx(65.0)


def test_fractional_threshold_fires_after_ten_seconds() -> None:
    policy = IdlePolicy(tool_results_threshold_minutes=0.1, tool_results_num_to_keep=1)
    assert tool_edit(plan(reads("a", "b"), policy, idle=10 / 60)).call_ids == ("a",)
    assert plan(reads("a", "b"), policy, idle=5 / 60) == []


@pytest.mark.parametrize("last", [math.nan, math.inf, -math.inf])
def test_non_finite_gap_does_nothing(last: float) -> None:
    assert idle_gap_minutes(last, NOW) is None
    history = reads("a", "b")
    assert (
        plan_idle_cleanup(history, policy=REF, last_response_at=last, now=NOW, thinking_rule="all")
        == []
    )


def test_clock_going_backwards_is_no_gap() -> None:
    assert idle_gap_minutes(NOW + 60, NOW) is None


def test_threshold_exactly_reached_fires() -> None:
    policy = IdlePolicy(tool_results_threshold_minutes=60, tool_results_num_to_keep=1)
    assert tool_edit(plan(reads("a", "b"), policy, idle=60)).call_ids == ("a",)


def test_nan_threshold_is_treated_as_disabled() -> None:
    policy = IdlePolicy(
        thinking_threshold_minutes=math.nan, tool_results_threshold_minutes=math.nan
    )
    assert plan(reads("a", "b"), policy, idle=10_000) == []


def test_each_cleanup_is_disabled_independently() -> None:
    history = [user("q"), assistant(thinking(), Text("a")), *reads("a", "b")]
    tools_only = plan(history, TOOLS_ONLY, idle=100)
    assert [type(e) for e in tools_only] == [ClearToolResults]
    thinking_only = plan(history, THINKING_ONLY, idle=100)
    assert [type(e) for e in thinking_only] == [ClearThinking]


def test_thresholds_fire_separately_by_gap() -> None:
    policy = IdlePolicy(thinking_threshold_minutes=5, tool_results_threshold_minutes=60)
    history = [user("q"), assistant(thinking(), Text("a")), *reads(*"abcdefg")]
    assert [type(e) for e in plan(history, policy, idle=7.5)] == [ClearThinking]
    assert [type(e) for e in plan(history, policy, idle=61)] == [ClearToolResults, ClearThinking]


# --- tool results (reference cases 7-18) ----------------------------------------------------


def test_untriggered_plan_leaves_the_view_identical() -> None:
    history = reads("a", "b", "c")
    edits = plan(history, idle=1)
    assert edits == []
    view = build_view(history, edits)
    assert all(new is old for new, old in zip(view, history, strict=True))


def test_clears_old_compactable_results_and_keeps_recent() -> None:
    history = reads("a", "b", "c")
    edits = plan(history)
    view = build_view(history, edits)
    for cleared_id in ("a", "b"):
        cleared = result_by_id(view, cleared_id)
        assert is_cleared_text(cleared.content)
        assert cleared.cleared
    assert result_by_id(view, "c") == result_by_id(history, "c")
    assert tool_edit(edits).kept == 1


def test_non_compactable_tools_untouched_and_keep_zero_clears_the_rest() -> None:
    history = [user("q")]
    history += tool_step("ask", "ask_user_question", "y" * 400)
    history += tool_step("r1", "read_file")
    policy = IdlePolicy(tool_results_threshold_minutes=5, tool_results_num_to_keep=0)
    edit = tool_edit(plan(history, policy))
    assert edit.call_ids == ("r1",) and edit.kept == 0  # the reference floors 0 to 1


def test_already_cleared_results_are_skipped() -> None:
    history = reads("a", "b", "c")
    first = plan(history)
    cleaned = build_view(history, first)
    # A later, larger history: only the newly old result is cleared.
    cleaned += tool_step("d")
    second = plan(cleaned)
    assert tool_edit(second).call_ids == ("c",)


def test_keep_count_larger_than_results_is_a_no_op() -> None:
    policy = IdlePolicy(tool_results_threshold_minutes=5, tool_results_num_to_keep=10)
    assert plan(reads("a", "b", "c"), policy) == []


@pytest.mark.parametrize("keep", [0, -3])
def test_keep_count_zero_keeps_none(keep: int) -> None:
    policy = IdlePolicy(tool_results_threshold_minutes=5, tool_results_num_to_keep=keep)
    edit = tool_edit(plan(reads("a", "b", "c"), policy))
    assert edit.call_ids == ("a", "b", "c")
    assert edit.kept == 0


def test_other_parts_of_a_cleared_message_are_preserved() -> None:
    history = [
        user("q"),
        assistant(call("a")),
        results(result("a"), Text("the user typed this alongside")),
        *tool_step("b"),
    ]
    view = build_view(history, plan(history))
    parts = view[2].parts
    assert parts[1] == Text("the user typed this alongside")
    assert isinstance(parts[0], ToolResult) and is_cleared_text(parts[0].content)


def test_clearing_keeps_call_ids_names_and_arguments() -> None:
    history = [user("q")]
    history += tool_step("s1", "run_shell_command")
    history += tool_step("s2", "run_shell_command")
    view = build_view(history, plan(history))
    assert view[1] is history[1]  # the assistant call message is untouched
    cleared = result_by_id(view, "s1")
    assert (cleared.call_id, cleared.name) == ("s1", "run_shell_command")


def test_batched_parallel_results_count_one_each() -> None:
    history = [
        user("q"),
        assistant(call("a"), call("b"), call("c")),
        results(result("a"), result("b"), result("c")),
    ]
    edit = tool_edit(plan(history))
    assert edit.call_ids == ("a", "b")
    assert edit.kept == 1


def test_mixed_batched_and_separate_results() -> None:
    policy = IdlePolicy(tool_results_threshold_minutes=5, tool_results_num_to_keep=2)
    history = [
        user("q"),
        *tool_step("single"),
        *tool_step("old"),
        assistant(call("p1"), call("p2")),
        results(result("p1"), result("p2")),
    ]
    edit = tool_edit(plan(history, policy))
    assert edit.call_ids == ("single", "old")
    assert edit.kept == 2


def test_error_results_are_never_cleared() -> None:
    history = [user("q")]
    history += tool_step("bad", "read_file", "E" * 400, error=True)
    history += tool_step("a")
    history += tool_step("b")
    view = build_view(history, plan(history))
    assert result_by_id(view, "bad") == result_by_id(history, "bad")
    assert result_by_id(view, "a").cleared


def test_tokens_saved_counts_what_the_sentinel_gives_back() -> None:
    # The reference reports 400 chars -> 100 tokens; the sentinel (with its recall id for
    # call "a") costs 12 back.
    assert estimate_tokens("x" * 400) == 100
    assert estimate_tokens(cleared_result_text("a")) == 12
    history = reads("a", "b")
    edits = plan(history)
    assert tool_edit(edits).tokens_saved == 88
    before = estimate_messages_tokens(history)
    assert before - estimate_messages_tokens(build_view(history, edits)) == 88


# --- where the reference was wrong: what takes a keep slot ----------------------------------


def reference_cleared(history: Sequence[Message], keep: int) -> list[str]:
    """What the reference design clears: keep window over every compactable result ref."""
    refs = [r for m in history for r in m.tool_results if r.name in DEFAULT_COMPACTABLE]
    window = refs[-keep:]
    return [
        r.call_id
        for r in refs
        if r not in window and not r.is_error and not is_cleared_text(r.content)
    ]


def test_errors_take_no_keep_slot() -> None:
    history = [user("q"), *tool_step("a"), *tool_step("b"), *tool_step("e", error=True)]
    # The reference spends its one slot on the error and clears the newest real output.
    assert reference_cleared(history, keep=1) == ["a", "b"]
    assert tool_edit(plan(history)).call_ids == ("a",)


def test_already_cleared_results_take_no_keep_slot() -> None:
    history = [user("q"), *tool_step("a"), *tool_step("b")]
    history.append(assistant(call("old")))
    history.append(results(ToolResult("old", "read_file", CLEARED_TOOL_RESULT, cleared=True)))
    assert reference_cleared(history, keep=1) == ["a", "b"]
    assert tool_edit(plan(history)).call_ids == ("a",)


def test_non_compactable_tools_take_no_keep_slot() -> None:
    history = [user("q"), *tool_step("a"), *tool_step("b")]
    history += tool_step("ls", "list_directory")
    history += tool_step("mcp", "mcp__github__search_issues")
    view = build_view(history, plan(history))
    assert result_by_id(view, "a").cleared
    assert result_by_id(view, "b") == result_by_id(history, "b")
    assert result_by_id(view, "ls") == result_by_id(history, "ls")
    assert result_by_id(view, "mcp") == result_by_id(history, "mcp")


def test_configured_extra_tools_become_compactable() -> None:
    policy = IdlePolicy(
        tool_results_threshold_minutes=5,
        tool_results_num_to_keep=1,
        compactable=DEFAULT_COMPACTABLE | {"mcp__github__search_issues"},
    )
    history = [user("q"), *tool_step("mcp", "mcp__github__search_issues"), *tool_step("b")]
    assert tool_edit(plan(history, policy)).call_ids == ("mcp",)


def test_results_smaller_than_the_sentinel_are_left_alone() -> None:
    history = [user("q"), *tool_step("a"), *tool_step("tiny", content="ok"), *tool_step("b")]
    edits = plan(history)
    assert tool_edit(edits).call_ids == ("a",)
    view = build_view(history, edits)
    assert result_by_id(view, "tiny").content == "ok"
    assert estimate_messages_tokens(view) < estimate_messages_tokens(history)


def test_a_small_result_takes_no_keep_slot() -> None:
    # As the module docstring says: only clearable results (larger than the sentinel) take
    # a slot, so a tiny newest result does not push a real one out of the kept window.
    history = [user("q"), *tool_step("a"), *tool_step("b"), *tool_step("tiny", content="ok")]
    edits = plan(history)  # keep 1: "b" is the newest clearable result
    assert tool_edit(edits).call_ids == ("a",)
    assert tool_edit(edits).kept == 1
    assert result_by_id(build_view(history, edits), "b").content == "x" * 400


def test_nothing_worth_clearing_returns_no_edit() -> None:
    history = [user("q"), *tool_step("e1", error=True), *tool_step("e2", error=True)]
    history += tool_step("a")
    assert plan(history) == []


def test_edit_records_the_gap_and_time_without_reading_the_clock() -> None:
    edit = tool_edit(plan(reads("a", "b"), idle=65))
    assert edit.reason == "idle"
    assert edit.at == NOW
    assert edit.gap_minutes == pytest.approx(65.0)


# --- describe_edit ----------------------------------------------------------------------------


def test_describe_tool_results_line() -> None:
    edit = ClearToolResults(
        call_ids=tuple(f"c{i}" for i in range(12)), tokens_saved=8400, kept=5, gap_minutes=65.0
    )
    policy = IdlePolicy(tool_results_threshold_minutes=60)
    assert describe_edit(edit, policy) == (
        "idle cleanup: gap 65.0 min >= 60 min, cleared 12 tool results (~8400 tokens), kept 5"
    )


def test_describe_thinking_line() -> None:
    edit = ClearThinking(message_ids=("a", "b", "c"), tokens_saved=5200, gap_minutes=7.5)
    assert describe_edit(edit, IdlePolicy()) == (
        "idle cleanup: gap 7.5 min >= 5 min, cleared thinking from 3 messages (~5200 tokens)"
    )


def test_describe_fractional_thresholds_and_singulars() -> None:
    policy = IdlePolicy(thinking_threshold_minutes=0.1, tool_results_threshold_minutes=0.1)
    tools = ClearToolResults(call_ids=("a",), tokens_saved=91, kept=1, gap_minutes=10 / 60)
    assert describe_edit(tools, policy) == (
        "idle cleanup: gap 0.167 min >= 0.1 min, cleared 1 tool result (~91 tokens), kept 1"
    )
    thoughts = ClearThinking(message_ids=("a",), tokens_saved=50, gap_minutes=0.5)
    assert describe_edit(thoughts, policy) == (
        "idle cleanup: gap 0.5 min >= 0.1 min, cleared thinking from 1 message (~50 tokens)"
    )


def test_describe_a_planned_edit_end_to_end() -> None:
    history = reads("a", "b", "c", "d", "e", "f", "g")
    policy = IdlePolicy(tool_results_threshold_minutes=60)
    edits = plan(history, policy, idle=90)
    assert [describe_edit(e, policy) for e in edits] == [
        "idle cleanup: gap 90.0 min >= 60 min, cleared 2 tool results (~176 tokens), kept 5"
    ]


def test_a_call_id_shared_with_an_error_is_never_cleared() -> None:
    # Malformed history (one id answered twice): clearing by id would also clear the error.
    history = [user("q"), *tool_step("dup"), *tool_step("dup", error=True), *tool_step("b")]
    history += tool_step("c")
    assert tool_edit(plan(history)).call_ids == ("b",)


def test_compactable_entries_may_name_a_prefix() -> None:
    from lull.context.idle import is_compactable

    assert is_compactable("mcp__gh__search", frozenset({"mcp__gh__*"}))
    assert not is_compactable("mcp__other__x", frozenset({"mcp__gh__*", "read_file"}))


# --- one cleanup per kind and gap -----------------------------------------------------------


def test_each_kind_has_its_own_gap() -> None:
    last = ago(30)
    assert gap_starts([], None) == {"tool_results": None, "thinking": None}
    assert gap_starts([], last) == {"tool_results": last, "thinking": last}
    thinking_clear = ClearThinking(("m",), at=ago(20))
    starts = gap_starts([thinking_clear], last)
    assert starts == {"tool_results": last, "thinking": None}  # the other kind stays open
    old_clear = ClearToolResults(("c",), at=ago(100))  # an earlier gap's clear
    restore = Restore((thinking_clear.id, old_clear.id), at=ago(10))
    starts = gap_starts([old_clear, thinking_clear, restore], last)
    assert starts == {"tool_results": ago(10), "thinking": ago(10)}  # afresh from the restore
    emergency = ClearToolResults(("d",), reason="emergency", at=ago(5))
    summary = Summary("x", "s", at=ago(5))
    light = Supersede(("e",), ("[p]",), at=ago(5))
    assert gap_starts([emergency, summary, light], last) == {"tool_results": last, "thinking": last}
    undo_summary = Restore((summary.id,), at=ago(4))
    assert gap_starts([summary, undo_summary], last)["tool_results"] == last


def test_a_later_longer_gap_still_clears_after_an_earlier_partial_cleanup() -> None:
    history = [*reads("a", "b", "c"), assistant(thinking(), Text("done"))]
    policy = IdlePolicy(5, 60, 1)
    first = plan(history, policy, idle=10)
    assert [type(e) for e in first] == [ClearThinking]
    earlier = [ClearThinking(first[0].message_ids, at=ago(110))]  # made 10 min into the gap
    later = plan_idle_cleanup(
        build_view(history, earlier),
        policy=policy,
        last_response_at=ago(120),
        now=NOW,
        thinking_rule="all",
        edits=earlier,
    )
    assert [type(e) for e in later] == [ClearToolResults]


def test_nothing_inside_the_warm_cached_prefix_is_cleared() -> None:
    history = reads("a", "b", "c", "d")  # messages: prompt, then (call, result) per id
    everything = tool_edit(plan(history, REF))
    assert everything.call_ids == ("a", "b", "c")
    warm_through_b = 5  # the one-hour stable part still cached: prompt, a, b
    edits = plan_idle_cleanup(
        history,
        policy=REF,
        last_response_at=ago(10),
        now=NOW,
        thinking_rule="all",
        cold_from=warm_through_b,
    )
    assert tool_edit(edits).call_ids == ("c",)  # a and b still count for the keep rule


def test_a_threshold_the_user_set_clears_inside_the_warm_prefix_too() -> None:
    history = [*reads("a", "b", "c", "d"), assistant(thinking("hmm"), Text("done"))]
    quick = IdlePolicy(0.1, 0.1, 1)
    all_warm = len(history)  # a 5-minute cache, 10 seconds after the last answer
    kept = plan_idle_cleanup(
        history,
        policy=quick,
        last_response_at=NOW - 10,
        now=NOW,
        thinking_rule="all",
        cold_from=all_warm,
    )
    assert kept == []  # lull's own timing: the warm cache is not rewritten
    explicit = IdlePolicy(0.1, 0.1, 1, explicit=frozenset({"tool_results", "thinking"}))
    cleared = plan_idle_cleanup(
        history,
        policy=explicit,
        last_response_at=NOW - 10,
        now=NOW,
        thinking_rule="all",
        cold_from=all_warm,
    )
    assert tool_edit(cleared).call_ids == ("a", "b", "c")
    assert [type(e) for e in cleared] == [ClearToolResults, ClearThinking]


def test_a_gap_matters_from_five_minutes_or_a_cleanup_threshold() -> None:
    policy = IdlePolicy()
    assert not gap_matters(None, policy)
    assert not gap_matters(4.9, policy)
    assert gap_matters(5.0, policy)
    quick = IdlePolicy(thinking_threshold_minutes=0.5, tool_results_threshold_minutes=-1)
    assert gap_matters(0.5, quick) and not gap_matters(0.4, quick)
    off = IdlePolicy(thinking_threshold_minutes=-1, tool_results_threshold_minutes=math.nan)
    assert not gap_matters(1.0, off) and gap_matters(5.0, off)  # a pause all the same
    history = [*reads("a", "b", "c"), assistant(thinking("hmm"), Text("done"))]
    for policy_, gap in ((quick, 0.4), (policy, 4.9), (off, 4.9)):
        assert not gap_matters(gap, policy_)
        assert plan(history, policy_, idle=gap) == []  # nothing is planned, whatever the view
