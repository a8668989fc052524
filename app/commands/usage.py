"""/cost: the session's tokens by kind, the cache hit ratio and the money spent."""

from __future__ import annotations

from app.commands.base import CommandContext, CommandResult, hint, session_cost
from app.model.provider import Usage


def cache_hit_ratio(usage: Usage) -> float | None:
    """cache_read / (input + cache_read + cache_write), or None before any prompt."""
    return usage.cache_hit_ratio


def format_cost(cost: float | None) -> str:
    """Dollars with enough digits for small sums; "price unknown" for None."""
    if cost is None:
        return "price unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def cost_report(ctx: CommandContext, arg: str) -> CommandResult:
    """/cost: usage summed over every request of this session."""
    if arg.strip():
        return hint(f"/cost takes no argument (got {arg.strip()!r})")
    session = ctx.agent.session
    usage = session.usage
    ratio = cache_hit_ratio(usage)
    lines = [
        f"tokens: input {usage.input:,} · cache read {usage.cache_read:,} · "
        f"cache write {usage.cache_write:,}{_one_hour(usage)} · output {usage.output:,}"
        + (f" (reasoning {usage.reasoning:,})" if usage.reasoning else ""),
        "cache hit ratio: "
        + (f"{100 * ratio:.1f}% (cache read / whole prompt)" if ratio is not None else "n/a"),
        f"requests: {session.record.num_requests}",
    ]
    if not ctx.agent.config.prompt_caching:
        lines.insert(2, "prompt caching is off (context.cache.enabled = false)")
    if session.record.last_usage is not None:
        lines.append(_last_request(ctx, *session.record.last_usage))
    cost = session_cost(ctx)
    models = ", ".join(m for m in session.usage_by_model if m) or ctx.model
    if cost is None:
        lines.append(f"cost: price unknown for {models}")
    else:
        lines.append(f"cost: {format_cost(cost)} at {models} prices")
    return CommandResult(tuple(lines))


def _last_request(ctx: CommandContext, usage: Usage, model: str) -> str:
    """The newest request: its prompt, how much came from the cache, its output and cost."""
    from app.catalog.pricing import cost_usd

    overrides = ctx.runtime.loaded.settings.pricing if ctx.runtime else ()
    ratio = usage.cache_hit_ratio
    cached = f" ({100 * ratio:.0f}% from cache)" if ratio is not None else ""
    return (
        f"last request: {usage.prompt_tokens:,} prompt tokens{cached}, {usage.output:,} output, "
        f"{format_cost(cost_usd(usage, model, overrides))}"
    )


def _one_hour(usage: Usage) -> str:
    """The one-hour part of cache writes, when the provider reports one."""
    tokens = int(getattr(usage, "cache_write_1h", 0))
    return f" (1h: {tokens:,})" if tokens else ""
