"""Property tests: idle cleanup over random valid histories is always safe to send."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from lull.context.estimate import estimate_messages_tokens, estimate_tokens
from lull.context.idle import DEFAULT_COMPACTABLE, IdlePolicy, ThinkingRule, plan_idle_cleanup
from lull.context.view import build_view
from lull.model.edits import ClearThinking, ClearToolResults, ContextEdit
from lull.model.messages import (
    CLEARED_TOOL_RESULT,
    Message,
    Part,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    cleared_result_text,
    is_cleared_text,
)
from tests import strategies
from tests.strategies import Ids
from tests.unit.context.builders import NOW, ago

NAMES = [*sorted(DEFAULT_COMPACTABLE), "list_directory", "todo_write", "mcp__github__search"]
RULES: list[ThinkingRule] = ["all", "keep_tool_calls", "none"]
# Mostly sizeable outputs (clearing only pays above the sentinel's ~9 tokens), some tiny.
SIZED = st.integers(0, 400).map(lambda n: ("lorem ipsum\n" * 40)[:n])
CONTENT = st.one_of(SIZED, SIZED, SIZED, st.text(alphabet="ab \n{}", max_size=40))


@st.composite
def thinking_parts(draw: st.DrawFn) -> list[Part]:
    """Zero to two reasoning blocks, some redacted, some with omitted (empty) text."""
    parts: list[Part] = []
    for _ in range(draw(st.integers(0, 2))):
        if draw(st.booleans()):
            parts.append(Thinking(draw(CONTENT), signature="sig"))
        else:
            parts.append(Thinking("", signature=draw(st.text("xyz", max_size=80)), redacted=True))
    return parts


@st.composite
def tool_result(draw: st.DrawFn, tool_call: ToolCall) -> ToolResult:
    """The one answer to ``tool_call``: success, error, or already cleared."""
    kind = draw(st.sampled_from(["ok", "ok", "ok", "error", "cleared"]))
    if kind == "cleared":
        return ToolResult(tool_call.id, tool_call.name, CLEARED_TOOL_RESULT, cleared=True)
    return ToolResult(tool_call.id, tool_call.name, draw(CONTENT), is_error=kind == "error")


@st.composite
def said(draw: st.DrawFn, texts: list[str]) -> list[Part]:
    """What a model says with its calls or as its answer: reasoning, maybe blank text."""
    text = draw(st.sampled_from(texts))
    return [*draw(thinking_parts()), *([Text(text)] if text else [])]


@st.composite
def answers(draw: st.DrawFn) -> Message | None:
    """A final answer, or (one turn in five) none: the turn was interrupted in its tool loop."""
    if draw(st.integers(0, 4)) == 0:
        return None
    parts = draw(said(["", " ", "done"]))
    return Message("assistant", tuple(parts) or (Text("ok"),), origin="model")


def tool_step(ids: Ids) -> st.SearchStrategy[list[Message]]:
    """1-3 calls of compactable and other tools, with reasoning, and their results."""
    return strategies.tool_step(
        ids,
        names=st.sampled_from(NAMES),
        arguments=st.builds(dict, n=st.integers()),
        prefix=said(["", "  ", "let me look"]),
        answer=tool_result,
    )


def histories() -> st.SearchStrategy[list[Message]]:
    """A valid history: user turns, tool loops (every call answered once), final answers."""
    return strategies.histories(
        turns=st.integers(0, 5),
        prompts=st.just("do something"),
        steps=st.integers(0, 4),
        step=tool_step,
        answers=answers(),
    )


policies = st.builds(
    IdlePolicy,
    thinking_threshold_minutes=st.sampled_from([-1.0, 0.0, 0.1, 5.0]),
    tool_results_threshold_minutes=st.sampled_from([-1.0, 0.0, 0.1, 60.0]),
    tool_results_num_to_keep=st.integers(-1, 4),
)


def plan(view: Sequence[Message], policy: IdlePolicy, rule: ThinkingRule) -> list[ContextEdit]:
    """Plan after a 90-minute break (every enabled threshold above is reached)."""
    return plan_idle_cleanup(
        view, policy=policy, last_response_at=ago(90), now=NOW, thinking_rule=rule
    )


def all_results(view: Sequence[Message]) -> list[ToolResult]:
    """Every tool result in order."""
    return [r for m in view for r in m.tool_results]


def clearable(view: Sequence[Message], policy: IdlePolicy) -> list[ToolResult]:
    """Results the design says may be cleared: successful, compactable, uncleared, not tiny."""
    return [
        r
        for r in all_results(view)
        if r.name in policy.compactable
        and not r.is_error
        and not r.cleared
        and estimate_tokens(r.content) > estimate_tokens(cleared_result_text(r.call_id))
    ]


def assert_valid_request(before: Sequence[Message], after: Sequence[Message]) -> None:
    """Same messages, same calls, every call still answered exactly once by the same tool."""
    assert [(m.id, m.role) for m in after] == [(m.id, m.role) for m in before]
    for old, new in zip(before, after, strict=True):
        assert new.tool_calls == old.tool_calls
        assert [(r.call_id, r.name, r.is_error) for r in new.tool_results] == [
            (r.call_id, r.name, r.is_error) for r in old.tool_results
        ]
        assert [p for p in new.parts if not isinstance(p, Thinking | ToolResult)] == [
            p for p in old.parts if not isinstance(p, Thinking | ToolResult)
        ]
        new_thinking = [p for p in new.parts if isinstance(p, Thinking)]
        assert new_thinking in ([], [p for p in old.parts if isinstance(p, Thinking)])
        if new_thinking != [] or not any(isinstance(p, Thinking) for p in old.parts):
            continue
        if new.role == "assistant":  # thinking removed: something sendable must remain
            assert any(not isinstance(p, Text) or p.text.strip() for p in new.parts)
    calls = [c.id for m in after for c in m.tool_calls]
    assert sorted(r.call_id for r in all_results(after)) == sorted(calls)


def assert_accounting_and_stable(
    history: Sequence[Message], edits: list[ContextEdit], policy: IdlePolicy, rule: ThinkingRule
) -> None:
    """Never larger; tokens_saved is what really left; cleaning twice changes nothing."""
    cleaned = build_view(history, edits)
    saved = estimate_messages_tokens(history) - estimate_messages_tokens(cleaned)
    assert saved >= 0
    assert saved == sum(
        e.tokens_saved for e in edits if isinstance(e, ClearToolResults | ClearThinking)
    )
    assert all(e.tokens_saved > 0 for e in edits if isinstance(e, ClearToolResults))
    assert plan(cleaned, policy, rule) == []


def assert_tool_result_rule(
    history: Sequence[Message], cleaned: Sequence[Message], policy: IdlePolicy
) -> None:
    """The N newest clearable results (0: none) and every error stay verbatim; tiny results
    take no keep slot."""
    after = {r.call_id: r for r in all_results(cleaned)}
    keep = max(0, policy.tool_results_num_to_keep)
    for original in clearable(history, policy)[len(clearable(history, policy)) - keep :]:
        assert after[original.call_id] == original
    for original in all_results(history):
        if original.is_error or original.name not in policy.compactable:
            assert after[original.call_id] == original
        elif after[original.call_id] != original:
            assert is_cleared_text(after[original.call_id].content)
            assert after[original.call_id].cleared
    if policy.tool_results_threshold_minutes >= 0:
        assert len(clearable(cleaned, policy)) <= keep


def assert_thinking_rule(
    history: Sequence[Message], cleaned: Sequence[Message], policy: IdlePolicy, rule: ThinkingRule
) -> None:
    """Thinking leaves by vendor rule, never from tool-call messages under keep_tool_calls."""
    ends_in_loop = bool(history) and bool(history[-1].tool_results)
    for old, new in zip(history, cleaned, strict=True):
        had = any(isinstance(p, Thinking) for p in old.parts)
        has = any(isinstance(p, Thinking) for p in new.parts)
        if rule == "none" or (rule == "keep_tool_calls" and old.tool_calls):
            assert has == had
        substantive = any(
            not isinstance(p, Thinking | Text) or (isinstance(p, Text) and p.text.strip())
            for p in old.parts
        )
        if had and substantive and rule == "all" and not ends_in_loop:
            assert has == (policy.thinking_threshold_minutes < 0)


def assert_quiet_before_thresholds(
    history: Sequence[Message], policy: IdlePolicy, rule: ThinkingRule
) -> None:
    """A gap just under every enabled threshold plans nothing."""
    enabled = [
        t
        for t in (policy.thinking_threshold_minutes, policy.tool_results_threshold_minutes)
        if t >= 0
    ]
    lowest = min(enabled, default=1.0)
    edits = plan_idle_cleanup(
        history, policy=policy, last_response_at=ago(lowest * 0.99), now=NOW, thinking_rule=rule
    )
    if lowest > 0:
        assert edits == []


@settings(max_examples=200, deadline=None)
@given(history=histories(), policy=policies, rule=st.sampled_from(RULES))
def test_idle_cleanup_of_random_histories(
    history: list[Message], policy: IdlePolicy, rule: ThinkingRule
) -> None:
    edits = plan(history, policy, rule)
    cleaned = build_view(history, edits)
    assert_valid_request(history, cleaned)
    assert_accounting_and_stable(history, edits, policy, rule)
    assert_tool_result_rule(history, cleaned, policy)
    assert_thinking_rule(history, cleaned, policy, rule)
    assert_quiet_before_thresholds(history, policy, rule)
