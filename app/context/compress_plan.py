"""Compression planning: budget arithmetic, where to split, and the anti-thrash guard.

Pure functions and plain state, no I/O and no model calls (``compress.py`` runs
the summary request). Token sizes come in as lists or callables so the same
code works with the real tokenizer and with the tests' simple ones.

Numbers (for a window W, threshold t, keep fraction k, max output O):

* output reserve R = min(O, W // 4) — room for the answer;
* input limit L = W - R — a prompt estimated above L / (1 + margin) is over;
* trigger T = t * W — auto compression starts at or above T;
* kept tail K = k * L — recent messages kept verbatim (about 30 % by default);
* growth G = 5 % of W — after a compression that left the context at or above
  T (it freed little) or failed, auto compression waits until the context has
  grown by G above the smallest size seen since (no thrashing);
* emergency target = min(L / (1 + margin), T) - 4 G — an emergency clear frees
  enough to stay clear of the limit for a while.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Literal

from lull.context.tiers import Tiers, classify
from lull.model import defaults
from lull.model.messages import Message, Text, ToolResult, cleared_result_text, is_cleared_text

SAFETY_MARGIN = 0.05
GROWTH_FRACTION = 0.05
MIN_HEAD_FRACTION = 0.05
MAX_FAILURES = 3
SUMMARY_MAX_TOKENS = 8192
MIN_SUMMARY_TOKENS = 256
OMITTED_NOTE = "[Earlier messages were too long to summarise and are omitted.]"

Decision = Literal["none", "compress", "emergency"]


@dataclass(frozen=True)
class CompressionPolicy:
    """``context.compression``: the staged thresholds (fractions of the window: watch, light
    step, full compression, emergency clear, and full compression on a cold cache), the kept
    tail fraction, the summary model."""

    threshold: float = defaults.COMPRESSION_THRESHOLD
    keep_recent_fraction: float = defaults.KEEP_RECENT_FRACTION
    model: str | None = None
    watch_threshold: float = defaults.WATCH_THRESHOLD
    light_threshold: float = defaults.LIGHT_THRESHOLD
    emergency_threshold: float = defaults.EMERGENCY_THRESHOLD
    cold_threshold: float = defaults.COLD_THRESHOLD


@dataclass(frozen=True)
class Budget:
    """Token budget of one model request (see the module docstring for the formulas)."""

    window: int
    reserve: int
    input_limit: int
    trigger: int
    keep_tokens: int
    summary_tokens: int
    growth: int
    watch: int = 0
    light: int = 0
    emergency: int = 0
    cold: int = 0

    def over_limit(self, estimate: int) -> bool:
        """True when ``estimate`` plus the safety margin does not fit the input limit."""
        return with_margin(estimate) > self.input_limit

    def over_emergency(self, estimate: int) -> bool:
        """True when ``estimate`` reaches the emergency line or does not fit at all."""
        return estimate >= self.emergency or self.over_limit(estimate)

    def over_threshold(self, estimate: int) -> bool:
        """True when ``estimate`` reaches the auto-compression trigger."""
        return estimate >= self.trigger

    def percent(self, estimate: int) -> int:
        """``estimate`` as a whole percentage of the window."""
        return round(100 * estimate / self.window) if self.window else 0


def with_margin(estimate: int) -> int:
    """``estimate`` plus the safety margin for counting error."""
    return math.ceil(estimate * (1 + SAFETY_MARGIN))


def make_budget(window: int, policy: CompressionPolicy, max_output_tokens: int) -> Budget:
    """The budget for a ``window``-token model answering up to ``max_output_tokens``."""
    window = max(int(window), 1)
    reserve = max(0, min(max_output_tokens, window // 4))
    limit = window - reserve
    threshold = min(max(policy.threshold, 0.01), 1.0)
    keep = min(max(policy.keep_recent_fraction, 0.0), 0.95)
    summary = min(max_output_tokens, SUMMARY_MAX_TOKENS, max(window // 8, MIN_SUMMARY_TOKENS))
    return Budget(
        window=window,
        reserve=reserve,
        input_limit=limit,
        trigger=math.ceil(threshold * window),
        keep_tokens=int(keep * limit),
        summary_tokens=max(summary, 1),
        growth=max(1, int(GROWTH_FRACTION * window)),
        watch=_line(policy.watch_threshold, window),
        light=_line(policy.light_threshold, window),
        emergency=_line(policy.emergency_threshold, window),
        cold=_line(policy.cold_threshold, window),
    )


def _line(fraction: float, window: int) -> int:
    """A stage's line in tokens (a fraction of the window clamped to (0, 1])."""
    return math.ceil(min(max(fraction, 0.01), 1.0) * window)


@dataclass
class CompressionGuard:
    """Anti-thrash and failure state of auto compression for one agent.

    After an attempt that failed, found nothing to split, or left the context
    at or above the trigger, ``floor`` is the smallest context size seen since;
    auto compression waits until the context has grown by the budget's growth
    above it. Three failures in a row pause it until :meth:`reset` (/compact).
    """

    failures: int = 0
    paused: bool = False
    floor: int | None = None

    def allows(self, estimate: int, budget: Budget) -> bool:
        """True when auto compression may run at this context size."""
        if self.paused:
            return False
        return self.floor is None or estimate >= self.floor + budget.growth

    def seen(self, estimate: int) -> None:
        """Note the current context size (it may have shrunk by other edits)."""
        if self.floor is not None:
            self.floor = min(self.floor, estimate)

    def succeeded(self, after: int, budget: Budget) -> None:
        """A summary was accepted; the context is now ``after`` tokens."""
        self.failures = 0
        self.floor = after if after >= budget.trigger else None

    def failed(self, estimate: int) -> bool:
        """A summary failed at context size ``estimate``; True if this pauses auto mode."""
        self.failures += 1
        self.floor = estimate
        if self.failures >= MAX_FAILURES and not self.paused:
            self.paused = True
            return True
        return False

    def nothing_to_do(self, estimate: int) -> None:
        """No useful split existed at ``estimate``: wait for growth before trying again."""
        self.floor = estimate

    def reset(self) -> None:
        """``/compact``: forget failures and un-pause."""
        self.failures, self.paused, self.floor = 0, False, None


def decide(estimate: int, budget: Budget, guard: CompressionGuard, *, overflow: bool) -> Decision:
    """What to do before a request whose prompt is estimated at ``estimate`` tokens.

    ``overflow`` means the provider has just said the prompt is too long: then
    compression runs even if the guard would wait (never when paused).
    """
    if guard.paused:
        return "emergency" if overflow or budget.over_emergency(estimate) else "none"
    if overflow:
        return "compress"
    if budget.over_limit(estimate) or budget.over_threshold(estimate):
        if guard.allows(estimate, budget):
            return "compress"
        return "emergency" if budget.over_emergency(estimate) else "none"
    return "none"


def emergency_target(budget: Budget) -> int:
    """The size an emergency clear brings the context down to.

    Well under both the limit and the trigger (by four growth steps), so the
    next emergency is many requests away instead of one cleared output per
    request (each clear rewrites the prompt prefix and misses the cache).
    """
    fits = min(math.floor(budget.input_limit / (1 + SAFETY_MARGIN)), budget.trigger)
    return max(fits - 4 * budget.growth, fits // 2)


# --- where to split --------------------------------------------------------------------------


def closed_boundaries(view: Sequence[Message]) -> list[bool]:
    """``closed[i]``: no tool call before index ``i`` waits for a result at or after it."""
    closed = [True]
    pending: set[str] = set()
    for message in view:
        pending.update(c.id for c in message.tool_calls)
        pending.difference_update(r.call_id for r in message.tool_results)
        closed.append(not pending)
    return closed


def split_points(
    view: Sequence[Message], transcript_ids: Container[str] | None = None
) -> list[int]:
    """Indices ``i`` where ``view[:i]`` may be summarised and ``view[i:]`` kept.

    The head must be closed (every call answered inside it), non-empty and end
    on a transcript message (not only an earlier summary); the tail non-empty
    and not starting with tool results.
    """
    closed = closed_boundaries(view)
    points = []
    for i in range(1, len(view)):
        if not closed[i] or view[i].tool_results:
            continue
        last = view[i - 1]
        if last.origin == "summary" or (
            transcript_ids is not None and last.id not in transcript_ids
        ):
            continue
        points.append(i)
    return points


def plan_split(
    view: Sequence[Message],
    sizes: Sequence[int],
    keep_tokens: int,
    *,
    transcript_ids: Container[str] | None = None,
    min_head_tokens: int = 1,
) -> int | None:
    """Where to split ``view`` (``sizes[i]`` = tokens of ``view[i]``), or None.

    Prefers the user turn that keeps the most recent messages within
    ``keep_tokens``; when no user turn qualifies (one long tool loop), the
    assistant boundary that does; when even the last step exceeds the budget,
    the latest valid boundary. None when no head of at least
    ``min_head_tokens`` can be summarised.
    """
    suffix = [0] * (len(view) + 1)
    for i in range(len(view) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + sizes[i]
    total = suffix[0]
    points = [
        i
        for i in split_points(view, transcript_ids)
        if total - suffix[i] >= max(min_head_tokens, 1)
    ]
    if not points:
        return None
    at_user = [i for i in points if view[i].is_user_prompt and suffix[i] <= keep_tokens]
    if at_user:
        return min(at_user)
    anywhere = [i for i in points if suffix[i] <= keep_tokens]
    return min(anywhere) if anywhere else max(points)


def min_head_tokens(total: int) -> int:
    """The smallest head worth an automatic summary call for a ``total``-token view."""
    return max(1, int(MIN_HEAD_FRACTION * total))


# --- making the summary input fit ------------------------------------------------------------


def clear_result(result: ToolResult) -> ToolResult:
    """``result`` with its content replaced by the cleared sentinel."""
    sentinel = cleared_result_text(result.call_id)
    return ToolResult(result.call_id, result.name, sentinel, result.is_error, True)


def fit_head(
    head: Sequence[Message], measure: Callable[[Message], int], limit: int
) -> list[Message]:
    """``head`` made to fit ``limit`` tokens for the summary request.

    First tool outputs are cleared, by tier (standard ones first, then important ones, then
    critical ones, which the summary's pinned block keeps verbatim anyway), oldest first
    within a tier; then the oldest messages are dropped at closed boundaries (a note says
    so). Pairing stays intact.
    """
    messages = list(head)
    total = sum(measure(m) for m in messages)
    if total <= limit:
        return messages
    tiers = classify(messages)
    for wanted in ("standard", "important", "critical"):
        for index, message in enumerate(messages):
            if total <= limit:
                return messages
            chosen = {
                r.call_id
                for r in message.tool_results
                if not r.cleared and tiers.result(r.call_id) == wanted
            }
            if not chosen:
                continue
            parts = tuple(
                clear_result(p) if isinstance(p, ToolResult) and p.call_id in chosen else p
                for p in message.parts
            )
            cleared = message.replace_parts(parts)
            total += measure(cleared) - measure(message)
            messages[index] = cleared
    if total <= limit:
        return messages
    return _drop_oldest(messages, measure, limit)


def _drop_oldest(
    messages: list[Message], measure: Callable[[Message], int], limit: int
) -> list[Message]:
    closed = closed_boundaries(messages)
    note = Message("user", (Text(OMITTED_NOTE),), origin="synthetic")
    starts = [i for i in range(1, len(messages)) if closed[i] and not messages[i].tool_results]
    suffix = sum(measure(m) for m in messages)
    position = 0
    for start in starts:
        suffix -= sum(measure(m) for m in messages[position:start])
        position = start
        if suffix + measure(note) <= limit:
            break
    if not starts:
        return [note]
    kept = messages[position:]
    return [note, *kept] if kept[0].role == "assistant" else kept


# --- emergency -------------------------------------------------------------------------------


def plan_emergency_clear(
    view: Sequence[Message],
    excess: int,
    saving: Callable[[ToolResult], int],
    tiers: Tiers | None = None,
) -> tuple[list[str], int]:
    """Tool results to clear so that about ``excess`` tokens are freed.

    Standard results go first (oldest first), then important ones; critical results (an
    error not yet followed by a success, a note) and error results are never cleared.
    Returns the call ids and the tokens they free; fewer than ``excess`` when clearing
    everything allowed is not enough.
    """
    tiers = tiers or classify(view)
    ids: list[str] = []
    freed = 0
    for wanted in ("standard", "important"):
        for message in view:
            for result in message.tool_results:
                if freed >= excess:
                    return ids, freed
                if tiers.result(result.call_id) != wanted or result.is_error:
                    continue
                if result.cleared or is_cleared_text(result.content):
                    continue
                gain = saving(result)
                if gain > 0:
                    ids.append(result.call_id)
                    freed += gain
    return ids, freed
