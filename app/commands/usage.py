"""/cost: the session's tokens by kind, the cache hit ratio, the money spent, and per-tool
figures (calls, failures, time, output, and how many outputs are cleared, recalled or
pointers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.catalog.pricing import FREE, cost_usd, price_for
from lull.commands.base import CommandResult, no_argument
from lull.context.tool_stats import ToolStats, tool_stats
from lull.model.provider import Usage

if TYPE_CHECKING:
    from lull.runtime import Runtime


NOT_REPORTED = "not reported by the server"


def format_cost(cost: float | None) -> str:
    """Dollars with enough digits for small sums; "price unknown" for None."""
    if cost is None:
        return "price unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def cost_report(runtime: Runtime, arg: str) -> CommandResult:
    """/cost: usage summed over every request of this session."""
    if (problem := no_argument("cost", arg)) is not None:
        return problem
    session = runtime.agent.session
    usage = session.usage
    ratio = usage.cache_hit_ratio
    lines = [
        _tokens_line(usage),
        "cache hit ratio: "
        + (f"{100 * ratio:.1f}% (cache read / whole prompt)" if ratio is not None else "n/a"),
        f"requests: {session.record.num_requests}",
    ]
    if not runtime.agent.config.prompt_caching:
        lines.insert(2, "prompt caching is off (context.cache.enabled = false)")
    if session.record.last_usage is not None:
        lines.append(_last_request(runtime, *session.record.last_usage))
    lines.extend(_subagent_lines(runtime))
    cost = runtime.session_cost()
    models = ", ".join(m for m in session.usage_by_model if m) or runtime.provider_config.model
    if usage.unknown:
        lines.append(f"cost: unknown ({NOT_REPORTED})")
    elif cost is None:
        lines.append(f"cost: price unknown for {models}")
    else:
        partly = "" if usage.reported else " (for the requests that reported usage)"
        free = _free_note(runtime)
        lines.append(f"cost: {format_cost(cost)} at {models} prices{free}{partly}")
    lines.extend(
        tool_lines(tool_stats(session.transcript, session.edits, session.record.tool_seconds))
    )
    return CommandResult(tuple(lines))


TOOL_COLUMNS = ("calls", "failed", "time", "output", "cleared", "recalled", "pointers")


def tool_lines(stats: list[ToolStats]) -> list[str]:
    """The per-tool table of /cost (nothing when the model called no tool)."""
    if not stats:
        return []
    rows = [
        (
            s.name,
            f"{s.calls:,}",
            f"{s.failures:,}",
            format_seconds(s.seconds),
            f"~{s.output_tokens:,}",
            f"{s.cleared:,}",
            f"{s.recalled:,}",
            f"{s.pointers:,}",
        )
        for s in stats
    ]
    width = max(len("tools:"), *(len(row[0]) + 2 for row in rows))
    sizes = [max(len(t), *(len(row[n + 1]) for row in rows)) for n, t in enumerate(TOOL_COLUMNS)]

    def line(first: str, cells: tuple[str, ...]) -> str:
        padded = (cell.rjust(size) for cell, size in zip(cells, sizes, strict=True))
        return first.ljust(width) + "  " + "  ".join(padded)

    lines = [line("tools:", TOOL_COLUMNS)]
    lines.extend(line(f"  {row[0]}", row[1:]) for row in rows)
    lines += [
        "  time: wall time of the calls that ran; output: estimated tokens as the tools gave it",
        "  cleared: outputs the model does not see in full now (cleared, superseded, summarised);",
        "  recalled: brought back with recall; pointers: a pointer to an earlier copy instead",
    ]
    return lines


def format_seconds(seconds: float) -> str:
    """Wall time for the tool table: 0.4s, 12.3s, 3m05s."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def _subagent_lines(runtime: Runtime) -> list[str]:
    """The split between this session's own requests and its sub-agents' (the cost line
    below includes both)."""
    record = runtime.agent.session.record
    if not record.subagents:
        return []
    usage = sum(record.subagent_usage_by_model.values(), Usage())
    total = runtime.session_cost()
    sub = runtime.subagent_cost()
    own = None if total is None or sub is None else total - sub
    agents = [run for run in record.subagents if run.session_id]
    searches = len(record.subagents) - len(agents)  # server-side web searches: no session
    sessions = ", ".join(run.session_id[:8] for run in agents[-3:])
    return [
        f"sub-agents: {len(agents)} run(s)"
        + (f" + {searches} web search(es)" if searches else "")
        + f", input {usage.prompt_tokens:,} · output {usage.output:,} tokens, {format_cost(sub)}"
        + (f" (their sessions: {sessions})" if sessions else ""),
        f"split: this conversation {format_cost(own)} + sub-agents {format_cost(sub)}",
    ]


def _tokens_line(usage: Usage) -> str:
    """Tokens by kind, or that the server reported none (zeros are not shown as counts)."""
    if usage.unknown:
        return f"tokens: {NOT_REPORTED}; the context size lull shows is its own estimate"
    line = (
        f"tokens: input {usage.input:,} · cache read {usage.cache_read:,} · "
        f"cache write {usage.cache_write:,}{_one_hour(usage)} · output {usage.output:,}"
        + (f" (reasoning {usage.reasoning:,})" if usage.reasoning else "")
    )
    return line if usage.reported else f"{line} (some requests reported no usage)"


def _free_note(runtime: Runtime) -> str:
    """Which models cost nothing because they run on a local server (and ``pricing`` does
    not price them)."""
    if not runtime.local_endpoint():
        return ""
    overrides = runtime.settings.pricing
    used = [m for m in runtime.agent.session.usage_by_model if m]
    free = [m for m in used if price_for(m, overrides, local=True) is FREE]
    if not free:
        return ""
    return f" ({', '.join(free)}: $0 on a local server; the pricing setting sets a price)"


def _last_request(runtime: Runtime, usage: Usage, model: str) -> str:
    """The newest request: its prompt, how much came from the cache, its output and cost."""
    if not usage.reported:
        return f"last request: usage {NOT_REPORTED}"
    overrides = runtime.settings.pricing
    ratio = usage.cache_hit_ratio
    cached = f" ({100 * ratio:.0f}% from cache)" if ratio is not None else ""
    return (
        f"last request: {usage.prompt_tokens:,} prompt tokens{cached}, {usage.output:,} output, "
        f"{format_cost(cost_usd(usage, model, overrides, local=runtime.local_endpoint()))}"
    )


def _one_hour(usage: Usage) -> str:
    """The one-hour part of cache writes, when the provider reports one."""
    tokens = usage.cache_write_1h
    return f" (1h: {tokens:,})" if tokens else ""
