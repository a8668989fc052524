"""The cache clock: which prompt prefixes lull has put in the provider's cache, and until when.

lull places every cache marker itself and sees every request, so it can know what the
provider holds without asking: each marker writes (or, when the provider already has it,
reads and refreshes) one cache entry for the prefix up to it, alive for its lifetime from the
request's start, and every hit refreshes an entry for its own lifetime (Anthropic's rules,
``shared/reference/protocol.md`` §B; OpenAI-compatible servers cache the whole prompt for
about five minutes). The engine feeds each request's prefix chain and markers
(:meth:`CacheClock.sent`) and says when the provider reported that nothing was cached
(:meth:`CacheClock.uncached`); every policy then asks :meth:`CacheClock.warmth` "is this
prefix still warm, and how far?" — idle cleanup, the light step, compression and the
status bar's "cache warm 4m" alike.

A prefix is named by :func:`lull.context.assemble.prefix_chain`: ``chain[k]`` stands for the
tools, system prompt, environment, thinking settings and the first ``k`` messages, so any
change in front of a boundary (a cleared result, a summary, another model) gives another
name and no stale entry can be mistaken for it.

Pure: no I/O and no clock reads (times are passed in, epoch seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from lull.catalog.cache_policy import TTL_MINUTES
from lull.model.provider import CacheTtl


def ttl_seconds(ttl: CacheTtl) -> float:
    """A cache lifetime in seconds."""
    return TTL_MINUTES[ttl] * 60.0


@dataclass(frozen=True, slots=True)
class CacheMark:
    """One marker of a request, in neutral terms: it caches the prefix through the first
    ``messages`` messages (0: tools, system prompt and environment only) for ``ttl``."""

    messages: int
    ttl: CacheTtl


@dataclass(slots=True)
class CacheEntry:
    """One prefix the provider holds: its chain name, length in messages and lifetime, and
    when it was written and last used (a hit refreshes it for its own lifetime)."""

    key: str
    messages: int
    ttl: CacheTtl
    written_at: float
    used_at: float

    @property
    def expires_at(self) -> float:
        """When the entry goes cold unless a request reads it first."""
        return self.used_at + ttl_seconds(self.ttl)

    def alive(self, now: float) -> bool:
        """True while the entry is still in the cache."""
        return now < self.expires_at


@dataclass(frozen=True, slots=True)
class Warmth:
    """What one request's prefix finds in the cache at one moment.

    ``messages`` is how many leading messages the longest warm prefix covers (0: only the
    tools, system prompt and environment; None: nothing at all), ``until`` when that prefix
    goes cold.
    """

    messages: int | None = None
    until: float | None = None

    @property
    def conversation_warm(self) -> bool:
        """True when part of the conversation itself would be read from the cache (a rewrite
        from its start would throw that away)."""
        return self.messages is not None and self.messages > 0

    @property
    def cold_from(self) -> int:
        """The first message a rewrite may change without discarding a warm cache entry."""
        return self.messages or 0


COLD = Warmth()


@dataclass
class CacheClock:
    """The cache entries lull's requests created, by prefix name."""

    entries: dict[str, CacheEntry] = field(default_factory=dict)
    _last_written: list[str] = field(default_factory=list)

    def warmth(self, chain: Sequence[str], now: float) -> Warmth:
        """The longest warm prefix of ``chain`` (see :class:`Warmth`)."""
        for messages in range(len(chain) - 1, -1, -1):
            entry = self.entries.get(chain[messages])
            if entry is not None and entry.alive(now):
                return Warmth(messages, entry.expires_at)
        return COLD

    def sent(self, chain: Sequence[str], marks: Sequence[CacheMark], at: float) -> None:
        """A request with these markers started at ``at``: it reads the longest warm prefix,
        refreshes that entry and every other one a marker sits on, and writes an entry at
        every marker past the prefix it read."""
        self._forget_expired(at)
        hit = self.warmth(chain, at).messages
        if hit is not None:
            self.entries[chain[hit]].used_at = at
        self._last_written = []
        for mark in marks:
            if not 0 <= mark.messages < len(chain):
                continue
            key = chain[mark.messages]
            entry = self.entries.get(key)
            if entry is not None:
                entry.used_at = at
            elif hit is None or mark.messages > hit:
                self.entries[key] = CacheEntry(key, mark.messages, mark.ttl, at, at)
                self._last_written.append(key)

    def uncached(self) -> None:
        """The provider reported neither a cache read nor a write for the request last sent
        (a prefix under the model's minimum, caching unsupported): it wrote nothing."""
        for key in self._last_written:
            self.entries.pop(key, None)
        self._last_written = []

    def warm_until(self, now: float) -> float | None:
        """When the last entry still alive goes cold (None: the cache is cold)."""
        alive = [e.expires_at for e in self.entries.values() if e.alive(now)]
        return max(alive, default=None)

    def _forget_expired(self, now: float) -> None:
        for key in [k for k, e in self.entries.items() if not e.alive(now)]:
            del self.entries[key]
