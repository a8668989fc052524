"""Cache-aware masking inside a turn: a batch only when the saving beats the cache write."""

from __future__ import annotations

from lull.context.estimate import estimate_message_tokens, estimate_part_tokens
from lull.context.idle import DEFAULT_COMPACTABLE
from lull.context.masking import MaskingPlan, MaskingPolicy, MaskingState, plan_masking
from lull.context.view import build_view
from lull.model.messages import Message, ToolResult
from tests.unit.context.builders import NOW, tool_step, user

POLICY = MaskingPolicy(enabled=True, keep=3, min_requests=4)


def saving(result: ToolResult) -> int:
    """Tokens freed by masking ``result`` (its estimate, less a pointer's)."""
    return max(0, estimate_part_tokens(result) - 20)


def turn(results: int, size: int = 4000) -> list[Message]:
    """A user prompt and ``results`` read steps of ``size`` characters each."""
    view = [user("refactor it")]
    for n in range(results):
        view += tool_step(f"c{n}", "read_file", "y" * size)
    return view


def state(view: list[Message], requests: int, *, warm: bool = True) -> MaskingState:
    return MaskingState(
        sizes=[estimate_message_tokens(m) for m in view], prefix=3000, requests=requests, warm=warm
    )


def plan(
    view: list[Message], requests: int, *, warm: bool = True, policy: MaskingPolicy = POLICY
) -> MaskingPlan | None:
    return plan_masking(
        view, state(view, requests, warm=warm), policy, DEFAULT_COMPACTABLE, saving, NOW
    )


def test_nothing_is_masked_early_in_a_turn_or_when_off() -> None:
    view = turn(12)
    assert plan(view, 3) is None
    assert plan(view, 20, policy=MaskingPolicy(enabled=False)) is None


def test_a_long_turn_masks_the_older_results_and_keeps_the_newest() -> None:
    view = turn(12)
    masking = plan(view, 12)
    assert masking is not None
    edit = masking.edit
    assert edit.reason == "masking" and edit.call_ids == tuple(f"c{n}" for n in range(9))
    assert edit.kept == 3 and edit.tokens_saved > 8000
    assert "replaced 9 older tool results with recall pointers" in masking.describe()


def test_a_warm_cache_waits_until_the_saving_beats_the_rewrite() -> None:
    # one small stale result behind the three newest, large ones: rewriting them costs more
    # than masking it saves
    view = [user("look"), *tool_step("old", "read_file", "z" * 400), *turn(3, 4000)[1:]]
    assert plan(view, 5, warm=True) is None
    # the same view with the cache cold costs nothing to rewrite
    cold = plan(view, 5, warm=False)
    assert cold is not None and cold.edit.call_ids == ("old",)


def test_masking_comes_in_batches() -> None:
    view = turn(12)
    first = plan(view, 12)
    assert first is not None
    masked = build_view(view, [first.edit])
    # one more step later: only one more result left the newest three
    later = masked + tool_step("c12", "read_file", "y" * 4000)
    assert plan(later, 13) is None


def mixed_turn() -> list[Message]:
    """A read, a failed command and eight searches, all in the current turn."""
    view = [user("fix a.py")]
    view += tool_step("read", "read_file", "source " * 600)
    view += tool_step("bad", "run_shell_command", "Traceback " * 300, error=True)
    for n in range(8):
        view += tool_step(f"c{n}", "grep_search", "match " * 600)
    return view


def test_errors_are_never_masked() -> None:
    masking = plan(mixed_turn(), 40)
    assert masking is not None
    assert "bad" not in masking.edit.call_ids


def test_a_batch_waits_until_it_is_as_big_as_the_turns_pace_warrants() -> None:
    # the same stale results pay against never masking in both cases; in a turn that adds
    # this much per request, waiting for a bigger batch (one rewrite instead of two) is
    # cheaper, while a turn that has added it over many requests masks now
    view = mixed_turn()
    assert plan(view, 12) is None
    assert plan(view, 40) is not None
