"""Cache-aware masking inside a long turn: old tool results become recall pointers in batches,
only when what that saves over the turn's expected remaining requests beats the cache write.

Masking old observations (keep the newest ~10) halves an agent's cost against sending them
all (Lindenbauer et al., "The Complexity Trap", 2025); MiroThinker's ``keep_tool_result``
does it at every call. Under prompt caching that is a loss: every rewrite of the prefix is a
cache write (1.25x the input price on Anthropic) of everything after the first masked result,
while a result left in place costs only a cache read (0.1x) per request. So masking here runs
in batches, at the moments the arithmetic says it pays:

- *candidates*: successful, compactable results older than the newest ``keep`` and outside
  the working set (``working_set.py``); errors and notes are never masked;
- *cost now*: with the cache warm, the request rewrites ``tail`` tokens (everything after the
  last cache entry its markers still reach — the conversation's start, as lull places them —
  less what masking removes) instead of reading them:
  ``(write - read) * tail - read * saved``; with the cache known to be cold, nothing;
- *saving*: ``read * saved`` on each later request of the turn; the expected number of them
  is the number made so far in the turn (a turn that has run long tends to run as long again;
  at least ``min_requests`` before anything is masked).

A batch that pays against never masking may still be too early: waiting lets more go stale,
and one bigger batch costs one rewrite instead of two. The batch size that balances the two
is the economic order quantity: with ``growth`` the maskable tokens the turn adds per
request, the rewrite cost ``K = (write / read - 1) * tail`` and the holding cost one read
per stale token per request, the best batch is ``sqrt(2 * K * growth)``. So a batch goes
when both hold:

- it pays: ``saved * (remaining + 1) > (write / read - 1) * tail``;
- it is big enough: ``saved ** 2 >= 2 * (write / read - 1) * tail * growth``.

The rule has no fitted constant. On the cost benchmark's real runs (one long turn each,
``tests/bench/cost.py``, recalls charged) it takes the masking from 1.03x of caching alone (the
first rule alone, keep 10) to 0.98x (keep 5), needs lost 3%; a rough cache simulation of all
122 converted runs (``tests/bench/trajectories.py``, with larger token counts) gave 0.91-0.93x.

A masked result reads like an idle-cleared one (``recall id …``), is a
:class:`ClearToolResults` edit with reason ``"masking"``, and ``/context restore`` undoes it.
Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from lull.context.idle import is_clearable
from lull.context.working_set import working_set
from lull.model import defaults
from lull.model.edits import ClearToolResults
from lull.model.messages import Message, ToolResult

ANTHROPIC_WRITE_PER_READ = 12.5
"""A 5-minute cache write (1.25x input) over a cache read (0.1x): Anthropic's prices."""


@dataclass(frozen=True)
class MaskingPolicy:
    """``context.masking``: on or off, how many newest results stay, the shortest turn it
    acts in, whether the working set stays."""

    enabled: bool = defaults.MASKING
    keep: int = defaults.MASKING_KEEP
    min_requests: int = defaults.MASKING_MIN_REQUESTS
    keep_working_set: bool = defaults.KEEP_WORKING_SET


@dataclass(frozen=True)
class MaskingState:
    """What the planner needs to know about the request about to go.

    ``sizes``: tokens of each view message; ``prefix``: tokens before the first message
    (system, environment, tools); ``requests``: requests made so far in this turn;
    ``warm``: whether the provider may still cache the conversation (False only when it is
    known to be cold; with caching off lull assumes warm, so a local server's prefix cache is
    not thrown away);
    ``write_per_read``: the cache write price over the cache read price; ``reused``: how
    many leading messages a rewritten request still reads from the cache (its markers reach
    no entry inside the conversation once an early message changes: 0).
    """

    sizes: Sequence[int]
    prefix: int
    requests: int
    warm: bool
    write_per_read: float = ANTHROPIC_WRITE_PER_READ
    reused: int = 0


def turn_growth(
    view: Sequence[Message],
    located: Sequence[tuple[int, ToolResult]],
    requests: int,
    saving: Callable[[ToolResult], int],
) -> float:
    """The maskable tokens this turn has added per request: what its results (``located``:
    (message index, result)) would free, over the requests made so far in the turn."""
    start = next(
        (
            i
            for i in range(len(view) - 1, -1, -1)
            if view[i].role == "user" and view[i].origin == "user"
        ),
        0,
    )
    grown = sum(saving(part) for index, part in located if index > start)
    return grown / max(1, requests)


@dataclass(frozen=True)
class MaskingPlan:
    """A batch worth masking, with the figures that justified it."""

    edit: ClearToolResults
    tail: int
    remaining: int

    def describe(self) -> str:
        """The one-line log / notice text."""
        edit = self.edit
        return (
            f"masking: replaced {len(edit.call_ids)} older tool results with recall pointers "
            f"(~{edit.tokens_saved:,} tokens) for the ~{self.remaining} requests this turn "
            f"may still make; kept the newest {edit.kept - len(edit.kept_for)}"
            + (f" and {len(edit.kept_for)} the work still uses" if edit.kept_for else "")
        )


def plan_masking(
    view: Sequence[Message],
    state: MaskingState,
    policy: MaskingPolicy,
    compactable: Collection[str],
    saving: Callable[[ToolResult], int],
    now: float,
) -> MaskingPlan | None:
    """The masking batch for the request about to go, or None when it would not pay.

    ``saving`` gives the tokens masking one result frees."""
    if not policy.enabled or state.requests < policy.min_requests:
        return None
    located: list[tuple[int, ToolResult]] = [
        (index, part)
        for index, message in enumerate(view)
        for part in message.parts
        if isinstance(part, ToolResult) and is_clearable(part, compactable)
    ]
    keep = max(0, policy.keep)
    older = located[: max(0, len(located) - keep)]
    if not older:
        return None
    candidates = [part for _, part in older]
    working = working_set(view, candidates) if policy.keep_working_set else []
    in_use = {k.call_id for k in working}
    freed = {p.call_id: saving(p) for _, p in older if p.call_id not in in_use}
    chosen = [(i, p) for i, p in older if freed.get(p.call_id, 0) > 0]
    if not chosen:
        return None
    saved = sum(freed[p.call_id] for _, p in chosen)
    first = min(chosen[0][0], state.reused)
    tail = max(0, sum(state.sizes[first:]) - saved)
    remaining = state.requests
    rewrite = (state.write_per_read - 1) * tail
    if state.warm and saved * (remaining + 1) <= rewrite:
        return None
    growth = turn_growth(view, located, state.requests, saving)
    if state.warm and saved * saved < 2 * rewrite * growth:
        return None
    edit = ClearToolResults(
        call_ids=tuple(dict.fromkeys(p.call_id for _, p in chosen)),
        reason="masking",
        tokens_saved=saved,
        kept=min(keep, len(located)) + len(working),
        at=now,
        kept_for=tuple(k.describe() for k in working),
    )
    return MaskingPlan(edit, tail, remaining)
