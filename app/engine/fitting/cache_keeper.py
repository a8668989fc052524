"""The engine's side of prompt caching: lifetimes for each request, and the cache clock fed.

:class:`CacheKeeper` sits where requests leave (``ContextFitter.sending`` and the summary
requests): it gives a request its lifetimes (``context.cache.ttl``; under ``auto`` the stable
part's, chosen at each turn's first request by ``context/cache_lifetime.py``), records the
markers it carries on the :class:`~lull.context.cache_clock.CacheClock`, and hears what the
provider reported. Everything that asks "is the cache warm?" asks it: idle cleanup, the stage
schedule (light step, compression), the status bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from lull.catalog.pricing import price_for
from lull.context.assemble import MessageDigests, prefix_chain
from lull.context.cache_clock import CacheClock, CacheMark, Warmth
from lull.context.cache_lifetime import (
    SHORT_MINUTES,
    Pause,
    cache_prices,
    stable_end,
    stable_lifetime,
)
from lull.context.estimate import estimate_message_tokens
from lull.context.idle import IdlePolicy, plan_idle_cleanup, thinking_rule_for
from lull.model import defaults
from lull.model.edits import ClearThinking, ClearToolResults
from lull.model.messages import Message
from lull.model.provider import (
    SHORT_TTL,
    CacheLifetime,
    CacheTtl,
    ModelRequest,
    Usage,
    Vendor,
)


@dataclass(frozen=True)
class CachePolicy:
    """What the keeper needs from the agent's settings: the lifetime setting, the vendor
    (Anthropic places markers; OpenAI-compatible servers cache whole prompts for about five
    minutes) and the idle policy (what a cleanup on a cold cache would free)."""

    lifetime: CacheLifetime = defaults.CACHE_TTL
    vendor: Vendor = "anthropic"
    idle: IdlePolicy = field(default_factory=IdlePolicy)


class CacheKeeper:
    """Lifetimes, the cache clock and the pauses of one agent's session."""

    def __init__(self, policy: CachePolicy, model: str) -> None:
        self.policy = policy
        self.clock = CacheClock()
        self.prices = cache_prices(price_for(model))
        self.pauses: list[Pause] = []
        self.stretches: list[int] = []
        self.stable_ttl: CacheTtl = SHORT_TTL
        self._requests = 0
        self._stretch_start = True
        self._digests = MessageDigests()
        self._seeded = False

    # --- what the cache holds -------------------------------------------------------------

    def warmth(self, request: ModelRequest, now: float) -> Warmth:
        """How much of ``request``'s prefix would be read from the cache at ``now``."""
        return self.clock.warmth(prefix_chain(request, self._digests), now)

    def expires_at(self) -> float | None:
        """When the cache goes cold if nothing reads it (None: nothing cached)."""
        return max((e.expires_at for e in self.clock.entries.values()), default=None)

    def seed(self, request: ModelRequest, last_response_at: float | None) -> None:
        """Once, for a resumed session: take the saved conversation as cached at its last
        response with the tail's lifetime (the provider may still hold it)."""
        if self._seeded:
            return
        self._seeded = True
        if last_response_at is None or not request.prompt_caching or self.clock.entries:
            return
        messages = request.messages
        end = len(messages) - 1 if messages and messages[-1].role == "assistant" else len(messages)
        marks = [CacheMark(0, request.cache_ttl), CacheMark(max(end, 0), request.cache_ttl)]
        self.clock.sent(prefix_chain(request, self._digests), marks, last_response_at)

    # --- turns and requests ---------------------------------------------------------------

    def turn_started(
        self, gap_minutes: float | None, view: Sequence[Message], fixed_tokens: int = 0
    ) -> None:
        """A user message after ``gap_minutes`` of silence (None: the session's first) is
        about to follow ``view`` (after ``fixed_tokens`` of tools, system prompt and
        environment): a pause of five minutes or more ends a stretch (under ``auto`` the next
        request chooses the stable part's lifetime afresh)."""
        if gap_minutes is None or gap_minutes < SHORT_MINUTES:
            return
        self._stretch_start = True
        self.stretches.append(self._requests)
        self._requests = 0
        if self.policy.lifetime == "auto":
            sizes = [estimate_message_tokens(m) for m in view]
            total = (sum(sizes) + max(fixed_tokens, 0)) or 1
            last_turn = sum(sizes[stable_end(view) :])
            share = self._clearable(view) / total
            self.pauses.append(Pause(gap_minutes, share, last_turn / total))

    def prepare(self, request: ModelRequest, at: float, *, summary: bool = False) -> ModelRequest:
        """``request`` with its lifetimes, its markers recorded as sent at ``at``. Under
        ``auto`` the first request of a stretch decides the stable part's lifetime; a
        ``summary`` request keeps it."""
        self._seeded = True
        if not request.prompt_caching:
            return request
        chain = prefix_chain(request, self._digests)
        if not summary:
            self._requests += 1
            if self.policy.lifetime == "auto" and self._stretch_start:
                self._stretch_start = False
                cold = not self.clock.warmth(chain, at).conversation_warm
                stretch = sum(self.stretches) / len(self.stretches) if self.stretches else 1.0
                self.stable_ttl = stable_lifetime(self.pauses, stretch, self.prices, cold_now=cold)
        if self.policy.lifetime == "auto" and self.stable_ttl != request.cache_ttl:
            request = replace(request, cache_stable_ttl=self.stable_ttl)
        self.clock.sent(chain, self._marks(request), at)
        return request

    def answered(self, usage: Usage) -> None:
        """The provider's usage for the request last prepared: an Anthropic answer that read
        and wrote nothing means nothing was cached (a prefix under the model's minimum)."""
        if self.policy.vendor != "anthropic" or not usage.reported:
            return
        if usage.cache_read == 0 and usage.cache_write == 0:
            self.clock.uncached()

    def _marks(self, request: ModelRequest) -> list[CacheMark]:
        """The markers of ``request`` in message terms (what the wire places, less the ones a
        minimum length drops; the previous tail is an entry already held)."""
        count = len(request.messages)
        if self.policy.vendor != "anthropic":
            return [CacheMark(count, SHORT_TTL)]  # automatic caching of the whole prompt
        stable = request.cache_stable_ttl
        if stable is None:
            return [CacheMark(0, request.cache_ttl), CacheMark(count, request.cache_ttl)]
        end = stable_end(request.messages)
        return [CacheMark(0, stable), CacheMark(end, stable), CacheMark(count, request.cache_ttl)]

    def _clearable(self, view: Sequence[Message]) -> int:
        """Tokens idle cleanup would free from ``view`` on a cold cache after a long gap."""
        idle = self.policy.idle
        as_cold = replace(
            idle,
            thinking_threshold_minutes=min(idle.thinking_threshold_minutes, 0.0),
            tool_results_threshold_minutes=min(idle.tool_results_threshold_minutes, 0.0),
        )
        edits = plan_idle_cleanup(
            view,
            policy=as_cold,
            last_response_at=0.0,
            now=1.0,
            thinking_rule=thinking_rule_for(self.policy.vendor),
        )
        return sum(e.tokens_saved for e in edits if isinstance(e, ClearToolResults | ClearThinking))
