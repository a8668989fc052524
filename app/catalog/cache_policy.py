"""How idle cleanup lines up with prompt-cache lifetimes, and the notes when it does not.

A prompt cache entry lives 5 minutes (Anthropic default, OpenAI in-memory retention) or one
hour (``context.cache.ttl = "1h"``, Anthropic), refreshed by every hit; with ``"auto"`` the
moving tail lives 5 minutes and the stable part 5 minutes or an hour, as the session's pauses
make it pay. An idle cleanup rewrites the conversation, so the next request pays for writing
it to the cache again; that is free only when the cache has expired anyway. So lull waits for
the cache clock (``app/context/cache_clock.py``) to say the part a cleanup changes is cold,
whatever the threshold: a threshold shorter than the lifetime in use has no effect below it,
which these lines say once at start.
"""

from __future__ import annotations

from dataclasses import dataclass

from lull.model import defaults
from lull.model.provider import CacheLifetime, CacheTtl, ProviderName, tail_ttl

TTL_MINUTES: dict[CacheTtl, float] = {"5m": 5.0, "1h": 60.0}
_IDLE_KEY = "context.clearContextOnIdle"


@dataclass(frozen=True)
class CacheSetup:
    """What decides whether idle cleanup lines up with the cache: the provider, caching on or
    off, the lifetime asked for, the two idle thresholds (minutes; < 0 disables one), and
    whether the user set each threshold (then it is applied as given, warm cache or not)."""

    provider: ProviderName | None = None
    enabled: bool = defaults.PROMPT_CACHING
    ttl: CacheLifetime = defaults.CACHE_TTL
    thinking_minutes: float = defaults.THINKING_THRESHOLD_MINUTES
    tool_results_minutes: float = defaults.TOOL_RESULTS_THRESHOLD_MINUTES
    thinking_explicit: bool = False
    tool_results_explicit: bool = False


def cache_ttl_minutes(setup: CacheSetup) -> float:
    """The prompt-cache lifetime in minutes.

    ``context.cache.ttl`` applies to Anthropic (``auto``: the tail's 5 minutes, the shortest
    lifetime it uses); OpenAI-compatible caches are not configurable and live about 5 minutes.
    """
    if setup.provider == "openai":
        return TTL_MINUTES["5m"]  # what OpenAI-compatible servers keep, not a setting
    return TTL_MINUTES[tail_ttl(setup.ttl)]


def ttl_warnings(setup: CacheSetup) -> list[str]:
    """One line per idle threshold shorter than the cache TTL in use (none if fine, or if
    prompt caching is off: then there is no warm cache). A threshold the user set is applied
    as given, and the line says what that costs; lull's own default waits for a cold cache."""
    if not setup.enabled:
        return []
    ttl = cache_ttl_minutes(setup)
    thresholds = (
        ("thinkingThresholdMinutes", setup.thinking_minutes, setup.thinking_explicit),
        ("toolResultsThresholdMinutes", setup.tool_results_minutes, setup.tool_results_explicit),
    )
    warnings: list[str] = []
    for name, minutes, explicit in thresholds:
        if not 0 <= minutes < ttl:
            continue
        said = (
            f"{_IDLE_KEY}.{name} is {minutes:g} min, shorter than the {ttl:g} min "
            "prompt-cache lifetime"
        )
        if explicit:
            warnings.append(
                f"{said}: as you set it, the cleanup runs after {minutes:g} idle minutes even "
                f"while the cache is warm, and the next request then pays to write the cache "
                f"again; set it to {ttl:g} or more to let it wait for a cold cache"
            )
        else:
            warnings.append(
                f"{said}: the cleanup waits until the cache has gone cold ({ttl:g} idle "
                f"minutes), since clearing a warm cache would pay to write it again; set it "
                f"to {ttl:g} or more (or < 0 to disable)"
            )
    return warnings
