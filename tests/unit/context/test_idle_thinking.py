"""Idle cleanup planning: thinking by vendor rule, and cleaning twice changes nothing."""

from __future__ import annotations

import pytest

from lull.context.estimate import estimate_messages_tokens
from lull.context.idle import ThinkingRule, thinking_rule_for
from lull.context.view import build_view
from lull.model.edits import Restore, Summary
from lull.model.messages import Message, Text, Thinking
from tests.unit.context.builders import (
    REF,
    THINKING_ONLY,
    assistant,
    call,
    plan,
    reads,
    result,
    result_by_id,
    results,
    thinking,
    thinking_edit,
    tool_edit,
    user,
)

# --- thinking -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vendor", "rule"),
    [
        ("anthropic", "all"),
        ("deepseek", "keep_tool_calls"),
        ("kimi", "keep_tool_calls"),
        ("Kimi", "keep_tool_calls"),
        ("openai", "none"),
        ("qwen", "none"),
        ("", "none"),
    ],
)
def test_thinking_rule_per_vendor(vendor: str, rule: ThinkingRule) -> None:
    assert thinking_rule_for(vendor) == rule


def thinking_history() -> list[Message]:
    """Two finished turns with reasoning: one answered directly, one with a tool call."""
    return [
        user("first"),
        assistant(thinking(), Text("answer one"), msg_id="plain"),
        user("second"),
        assistant(thinking(), Thinking("", "opaque" * 10, redacted=True), call("c1"), msg_id="tc"),
        results(result("c1")),
        assistant(thinking(), Text("answer two"), msg_id="final"),
    ]


def test_rule_all_drops_thinking_and_redacted_thinking_everywhere() -> None:
    history = thinking_history()
    edits = plan(history, THINKING_ONLY, rule="all")
    assert thinking_edit(edits).message_ids == ("plain", "tc", "final")
    view = build_view(history, edits)
    assert not any(isinstance(p, Thinking) for m in view for p in m.parts)
    assert view[3].tool_calls == history[3].tool_calls


def test_rule_keep_tool_calls_keeps_reasoning_on_tool_call_messages() -> None:
    history = thinking_history()
    edits = plan(history, THINKING_ONLY, rule="keep_tool_calls")
    assert thinking_edit(edits).message_ids == ("plain", "final")
    view = build_view(history, edits)
    assert view[3] is history[3]


def test_rule_none_never_touches_thinking() -> None:
    assert plan(thinking_history(), THINKING_ONLY, rule="none") == []


def test_thinking_tokens_saved_matches_what_leaves_the_view() -> None:
    history = thinking_history()
    edits = plan(history, THINKING_ONLY, rule="all")
    saved = estimate_messages_tokens(history) - estimate_messages_tokens(build_view(history, edits))
    assert thinking_edit(edits).tokens_saved == saved == 50 * 3 + 15


@pytest.mark.parametrize("rule", ["all", "keep_tool_calls"])
@pytest.mark.parametrize("leftover", [(), (Text(""),), (Text("  \n"),)])
def test_never_empties_an_assistant_message(rule: ThinkingRule, leftover: tuple[Text, ...]) -> None:
    history = [
        user("q"),
        assistant(thinking(), *leftover, msg_id="only-thinking"),
        user("again"),
        assistant(thinking(), Text("real answer"), msg_id="answer"),
    ]
    edits = plan(history, THINKING_ONLY, rule=rule)
    assert thinking_edit(edits).message_ids == ("answer",)
    assert build_view(history, edits)[1] is history[1]


def test_interrupted_tool_loop_keeps_its_reasoning() -> None:
    # The last turn stopped after tool results; the next user message continues that loop
    # for the API, whose last assistant reasoning must be sent back unchanged.
    history = [
        user("first"),
        assistant(thinking(), Text("done"), msg_id="earlier"),
        user("second"),
        assistant(thinking(), Text("checking"), call("c1"), msg_id="loop1"),
        results(result("c1")),
        assistant(thinking(), Text("one more"), call("c2"), msg_id="loop2"),
        results(result("c2", content="cancelled by user", error=True)),
    ]
    edits = plan(history, THINKING_ONLY, rule="all")
    assert thinking_edit(edits).message_ids == ("earlier",)


def test_assistant_messages_without_thinking_are_not_listed() -> None:
    history = [user("q"), assistant(Text("plain answer")), user("more")]
    assert plan(history, THINKING_ONLY, rule="all") == []


# --- once per episode: cleaning twice changes nothing ---------------------------------------


@pytest.mark.parametrize("rule", ["all", "keep_tool_calls", "none"])
def test_planning_on_a_cleaned_view_yields_nothing(rule: ThinkingRule) -> None:
    history = thinking_history() + reads("a", "b", "c") + [assistant(thinking(), Text("end"))]
    edits = plan(history, REF, idle=120, rule=rule)
    assert edits
    cleaned = build_view(history, edits)
    assert plan(cleaned, REF, idle=120, rule=rule) == []


def test_restored_results_are_cleared_again_next_episode() -> None:
    history = reads("a", "b", "c")
    first = plan(history)
    restore = Restore(edit_ids=tuple(e.id for e in first))
    view = build_view(history, [*first, restore])
    assert result_by_id(view, "a") == result_by_id(history, "a")
    assert tool_edit(plan(view)).call_ids == ("a", "b")


def test_summary_messages_are_left_alone() -> None:
    history = reads("a", "b", "c")
    view = build_view(history, [Summary(through_id=history[2].id, text="s" * 400)])
    assert view[0].origin == "summary"
    edit = tool_edit(plan(view))
    assert edit.call_ids == ("b",)
