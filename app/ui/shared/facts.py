"""Read the runtime into :class:`StatusFacts`, for the TUI's status bar and the line mode's
toolbar alike (no widgets here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.ui.shared.status import StatusFacts

if TYPE_CHECKING:
    from lull.runtime import Runtime


def idle_handled(runtime: Runtime) -> bool:
    """Whether this idle gap was already tidied: every kind of idle cleanup ran in it."""
    from lull.context.idle import gap_starts

    session = runtime.agent.session
    last = session.last_response_at
    if last is None:
        return False
    return all(start is None for start in gap_starts(session.edits, last).values())


def estimate_context(runtime: Runtime, window: int) -> int:
    """Estimated tokens of the next prompt: system prompt, tools and the view (as /context)."""
    from lull.commands import context_breakdown

    return context_breakdown(runtime.agent, window).total


def facts_for(runtime: Runtime, state: str, context_tokens: int | None = None) -> StatusFacts:
    """The status facts of ``runtime`` now; ``context_tokens`` defaults to an estimate."""
    settings = runtime.settings
    idle = settings.context.clear_context_on_idle
    session = runtime.agent.session
    window = runtime.context_window()
    if context_tokens is None:
        context_tokens = estimate_context(runtime, window)
    return StatusFacts(
        state=state,
        provider=runtime.provider_config.provider,
        model=runtime.provider_config.model,
        context_tokens=context_tokens,
        context_window=window,
        last_response_at=session.last_response_at,
        idle_handled=idle_handled(runtime),
        prompt_caching=settings.context.cache.enabled,
        cache_warm_until=runtime.agent.cache_warm_until(),
        thinking_minutes=idle.thinking_threshold_minutes,
        tool_results_minutes=idle.tool_results_threshold_minutes,
        cost_usd=runtime.session_cost(),
        cache_hit_ratio=session.usage.cache_hit_ratio,
        usage_reported=session.usage.reported,
        watch_fraction=settings.context.compression.watch_threshold,
    )
