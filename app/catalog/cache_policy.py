"""How idle cleanup lines up with prompt-cache lifetimes, and the warnings when it does not.

A prompt cache entry lives 5 minutes (Anthropic default, OpenAI in-memory retention) or one
hour (``context.cache.ttl = "1h"``, Anthropic), refreshed by every hit. An idle cleanup
rewrites the conversation, so the next request pays for writing it to the cache again; that
is free only when the cache has expired anyway. So each idle threshold should be at least the
cache TTL in use: the defaults (thinking 5 min, tool results 60 min) both are, for 5m.
"""

from __future__ import annotations

from settings.model import Settings

TTL_MINUTES = {"5m": 5.0, "1h": 60.0}
_IDLE_KEY = "context.clearContextOnIdle"


def cache_ttl_minutes(settings: Settings) -> float:
    """The prompt-cache lifetime these settings give, in minutes.

    ``context.cache.ttl`` applies to Anthropic; OpenAI-compatible caches are not configurable
    and live about 5 minutes.
    """
    if settings.model.provider == "openai":
        return TTL_MINUTES["5m"]
    return TTL_MINUTES[settings.context.cache.ttl]


def ttl_warnings(settings: Settings) -> list[str]:
    """One line per idle threshold that is shorter than the cache TTL in use (none if fine,
    or if prompt caching is off: then no warm cache can be discarded)."""
    if not settings.context.cache.enabled:
        return []
    ttl = cache_ttl_minutes(settings)
    idle = settings.context.clear_context_on_idle
    thresholds = (
        ("thinkingThresholdMinutes", idle.thinking_threshold_minutes),
        ("toolResultsThresholdMinutes", idle.tool_results_threshold_minutes),
    )
    warnings: list[str] = []
    for name, minutes in thresholds:
        if 0 <= minutes < ttl:
            warnings.append(
                f"{_IDLE_KEY}.{name} is {minutes:g} min, shorter than the {ttl:g} min "
                f"prompt-cache lifetime: a cleanup after {minutes:g} idle minutes discards a "
                f"cache that is still warm and pays to write it again; set it to {ttl:g} or "
                "more (or < 0 to disable)"
            )
    return warnings
