"""When each context step runs: the staged thresholds as one small, replaceable policy.

Lines are fractions of the model's window (``context.compression.*``, see
``compress_plan.make_budget``):

* **watch** (0.4): nothing runs; front ends show the context in a warning colour;
* **light** (0.5): superseded tool outputs become pointers (``light.py``), no model call;
* **full** (0.8, ``threshold``): an LLM summary (``engine/fitting/summary.py``);
* **emergency** (0.9, or the prompt would not fit): the oldest outputs are cleared.

The media window (``context/media.py``: only the newest messages with images keep them)
joins whichever rewrite happens, or runs once the cache has gone cold (:meth:`StageSchedule.
media_due`), so a new image on a warm cache never costs a rewrite of its own.

**Cold-cache scheduling.** Each of these steps rewrites the conversation, and a rewrite is free
only when the prompt cache over what it changes is cold anyway. So the schedule asks the cache
clock (``cache_clock.py``, given as a :class:`~lull.context.cache_clock.Warmth`):

* on a **cold** cache (the user came back after it expired), full compression runs already
  from the **cold line** (0.5, ``coldThreshold``) instead of waiting for 0.8 an hour later on
  a warm cache, and the light step runs at its line;
* on a **warm** cache the light step waits for a cold moment (or for the full line), and full
  compression is deferred while there is headroom (Myrm's "hot cache bypass"): it runs from
  one growth step (5% of the window) under the emergency line, never past it;
* idle cleanup changes only what lies past the warm prefix (``Warmth.cold_from``, applied by
  ``idle.plan_idle_cleanup``);
* the emergency clear runs whatever the cache (the request must fit).

Without prompt caching there is nothing to wait for: the plain lines apply.

Every light or full step rewrites the conversation and so costs one prompt-cache write; to
keep that rare, each runs **at most once per crossing** of its line, never on every request:
the light step re-arms only once a compression has brought the context back under the light
line (the light step itself does not: falling back under the line because of what it freed
and crossing again a few requests later would rewrite the cache over and over), and full
compression follows :class:`CompressionGuard` (after an attempt that failed or left the
context above the line, it waits until the context has grown by 5% of the window). A light
step that would free less than a quarter of the prompt is skipped for the crossing
(``light.MIN_SHARE``). :class:`StageSchedule` is the only place that decides when;
``engine/fitting/fitter.py`` asks it before every request.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from lull.context.cache_clock import Warmth
from lull.context.compress_plan import Budget, CompressionGuard, decide


@dataclass
class StageSchedule:
    """The light step's crossing state and the full compression's guard, for one agent."""

    guard: CompressionGuard = field(default_factory=CompressionGuard)
    light_armed: bool = True
    compressed_since_light: bool = False

    def seen(self, estimate: int, budget: Budget) -> None:
        """Note the current context size: back under the light line after a compression
        re-arms the light step."""
        self.guard.seen(estimate)
        if self.compressed_since_light and estimate < budget.light:
            self.light_armed, self.compressed_since_light = True, False

    def compressed(self) -> None:
        """A summary was accepted: the light step may run at the next crossing."""
        self.compressed_since_light = True

    def light_due(self, estimate: int, budget: Budget, cache: Warmth | None = None) -> bool:
        """True when the context has crossed the light line since the light step last ran,
        and the conversation's cache is cold (``cache`` None: no caching) or the context has
        reached the full line."""
        if not (self.light_armed and estimate >= budget.light):
            return False
        return cache is None or not cache.conversation_warm or estimate >= budget.trigger

    def light_ran(self) -> None:
        """The light step ran for this crossing (whether or not it found anything)."""
        self.light_armed = False

    @staticmethod
    def compress_budget(budget: Budget, cache: Warmth | None = None) -> Budget:
        """``budget`` with the compression trigger this cache calls for: the cold line on a
        cold cache, the hot-bypass line (a growth step under the emergency line) on a warm
        one, the full line without caching (``cache`` None)."""
        if cache is None:
            return budget
        if cache.conversation_warm:
            hot = max(budget.trigger, budget.emergency - budget.growth)
            return replace(budget, trigger=min(hot, budget.input_limit))
        return replace(budget, trigger=min(budget.trigger, budget.cold))

    def compress_due(
        self, estimate: int, budget: Budget, *, overflow: bool, cache: Warmth | None = None
    ) -> bool:
        """True when full compression should run before this request (``overflow``: the
        provider has just said the prompt is too long)."""
        lines = self.compress_budget(budget, cache)
        return decide(estimate, lines, self.guard, overflow=overflow) == "compress"

    def emergency_due(self, estimate: int, budget: Budget) -> bool:
        """True when the emergency clear should run: at the emergency line or over the limit."""
        return budget.over_emergency(estimate)

    @staticmethod
    def media_due(*, rewriting: bool, cold: bool) -> bool:
        """True when the media window may clear old images before this request: only when
        the prompt cache is rewritten anyway (another edit since the last request) or has
        gone cold (an idle gap of at least its lifetime), never on a warm cache alone."""
        return rewriting or cold

    @staticmethod
    def watching(estimate: int, budget: Budget) -> bool:
        """True at or above the watch line (front ends warn)."""
        return estimate >= budget.watch
