"""Property test: for random histories and budgets, the compressed view is a valid request
that fits (or everything that could be cleared is cleared)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from lull.context.compress_plan import (
    CompressionGuard,
    CompressionPolicy,
    clear_result,
    decide,
    emergency_target,
    make_budget,
    min_head_tokens,
    plan_emergency_clear,
    plan_split,
    split_points,
)
from lull.context.estimate import estimate_message_tokens, estimate_part_tokens
from lull.context.tiers import classify
from lull.context.view import build_view, summary_text
from lull.model.edits import ClearToolResults, ContextEdit, Summary
from lull.model.messages import (
    Message,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    is_cleared_text,
)
from tests import strategies
from tests.strategies import Ids

CONTENT = st.integers(0, 3000).map(lambda n: ("output line\n" * 300)[:n])
SHORT = st.sampled_from(["do it", "now the tests", "and fix the bug please", "ok"])


def result(call: ToolCall) -> st.SearchStrategy[ToolResult]:
    """The output of ``call``, sized anywhere up to 3,000 characters; one in six an error."""
    errors = st.integers(0, 5).map(lambda n: n == 0)
    return st.builds(ToolResult, st.just(call.id), st.just(call.name), CONTENT, is_error=errors)


def tool_step(ids: Ids) -> st.SearchStrategy[list[Message]]:
    """1-3 reads or searches, maybe after some thinking, and their results."""
    thinking = st.booleans().map(lambda think: [Thinking("hmm", "sig")] if think else [])
    return strategies.tool_step(
        ids,
        names=st.sampled_from(["read_file", "grep_search"]),
        answer=result,
        prefix=thinking,
        provider="anthropic",
    )


def histories() -> st.SearchStrategy[list[Message]]:
    """User turns with tool loops; the last turn may still be inside its loop."""
    done = SHORT.map(lambda text: Message("assistant", (Text("done: " + text),), origin="model"))
    return strategies.histories(
        turns=st.integers(1, 6),
        prompts=SHORT,
        steps=st.integers(0, 5),
        step=tool_step,
        answers=st.none() | done,
    )


def tokens(view: Sequence[Message]) -> int:
    """Size of a view (the estimate stands in for the tokenizer here)."""
    return sum(estimate_message_tokens(m) for m in view)


def assert_valid_request(view: Sequence[Message]) -> None:
    """What strict APIs demand: starts with a user message, no empty message, and every
    call answered exactly once by the user messages right after it (nothing else)."""
    assert view and view[0].role == "user"
    assert all(m.parts for m in view)
    answered: set[str] = set()
    for index, message in enumerate(view):
        if message.role != "assistant" or not message.tool_calls:
            continue
        following: list[str] = []
        for later in view[index + 1 :]:
            if later.role != "user":
                break
            following += [r.call_id for r in later.tool_results]
        assert sorted(following) == sorted(c.id for c in message.tool_calls)
        answered.update(following)
    assert sorted(answered) == sorted(r.call_id for m in view for r in m.tool_results)


def earlier_summary(history: list[Message], pick: int | None) -> list[ContextEdit]:
    """An earlier compression in force, at split point number ``pick`` (modulo their
    number), or none."""
    points = split_points(history)
    if not points or pick is None:
        return []
    split = points[pick % len(points)]
    return [Summary(through_id=history[split - 1].id, text="earlier summary " * 20)]


def _step(number: int, content: str) -> list[Message]:
    call = ToolCall(f"call_{number}", "read_file", {})
    result = ToolResult(call.id, call.name, content, is_error=True)
    return [
        Message("assistant", (call,), origin="model", provider="anthropic"),
        Message("user", (result,), origin="tool"),
    ]


RECALL_LINE_COUNTEREXAMPLE = [
    Message("user", (Text("do it"),)),
    *_step(0, ("output line\n" * 300)[:129]),
    *_step(1, ""),
]
"""A summary smaller than the head only without the recall line under it grew the context."""


@settings(max_examples=150, deadline=None)
@given(
    history=histories(),
    window=st.integers(300, 20_000),
    threshold=st.floats(0.3, 1.0),
    keep=st.floats(0.05, 0.9),
    max_output=st.integers(64, 8192),
    fixed=st.integers(0, 200),
    earlier=st.none() | st.integers(0, 100),
)
@example(
    history=RECALL_LINE_COUNTEREXAMPLE,
    window=300,
    threshold=0.5,
    keep=0.5,
    max_output=64,
    fixed=93,
    earlier=None,
)
def test_compressed_view_is_valid_and_fits(
    history: list[Message],
    window: int,
    threshold: float,
    keep: float,
    max_output: int,
    fixed: int,
    earlier: int | None,
) -> None:
    edits = earlier_summary(history, earlier)
    view = build_view(history, edits)
    assert_valid_request(view)
    budget = make_budget(window, CompressionPolicy(threshold, keep), max_output)
    before = fixed + tokens(view)
    if decide(before, budget, CompressionGuard(), overflow=False) == "none":
        return
    sizes = [estimate_message_tokens(m) for m in view]
    ids = {m.id for m in history}
    split = plan_split(
        view, sizes, budget.keep_tokens, transcript_ids=ids, min_head_tokens=min_head_tokens(before)
    )
    if split is not None:
        head_tokens = sum(sizes[:split])
        summary = "s" * 4 * min(max(head_tokens // 2, 1), budget.summary_tokens)
        edit = Summary(through_id=view[split - 1].id, text=summary)
        shown = Message("user", (Text(summary_text(edit)),), origin="summary")
        compressed = build_view(history, [*edits, edit])
        smaller = fixed + tokens(compressed) < before  # else not applied, as the engine does
        if estimate_message_tokens(shown) < head_tokens and smaller:
            edits.append(edit)
            assert_valid_request(compressed)
            tail = view[split:]
            kept = [m.id for m in compressed]
            assert kept[len(kept) - len(tail) + 1 :] == [m.id for m in tail[1:]]  # verbatim
            assert len(kept) in (len(tail), len(tail) + 1)
            kept_at_user = [i for i in split_points(view, ids) if view[i].is_user_prompt]
            if any(sum(sizes[i:]) <= budget.keep_tokens for i in kept_at_user):
                assert sum(sizes[split:]) <= budget.keep_tokens  # the tail respects the budget
            view = compressed
            event("compressed")
    estimate = fixed + tokens(view)
    if budget.over_limit(estimate):
        excess = estimate - emergency_target(budget)
        saving = lambda r: estimate_part_tokens(r) - estimate_part_tokens(clear_result(r))  # noqa: E731
        call_ids, _ = plan_emergency_clear(view, excess, saving)
        edits.append(ClearToolResults(tuple(call_ids), reason="emergency"))
        view = build_view(history, edits)
        event("emergency clear")
        assert_valid_request(view)
        estimate = fixed + tokens(view)
        critical = classify(view)
        everything_cleared = all(
            is_cleared_text(r.content)
            or saving(r) <= 0
            or r.is_error
            or critical.result(r.call_id) == "critical"
            for m in view
            for r in m.tool_results
        )
        assert not budget.over_limit(estimate) or everything_cleared
        assert not any(r.is_error and r.cleared for m in view for r in m.tool_results)
    assert estimate <= before  # never larger than what it replaced
