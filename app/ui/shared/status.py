"""What the status bar says: pure functions from facts about the session to one line.

No Textual here (the TUI's status bar shows the line), so the wording and the narrow-terminal
fitting are unit-tested directly; :mod:`lull.ui.shared.facts` reads the facts from a runtime.
The bar shows the model, context use, cache state and the session's cache hit ratio, time
until idle cleanup applies, and the session cost; while a request has sent no token yet,
"waiting Ns", and then the time to first token (when it took a second or more). At small
widths parts get shorter, then the least important ones are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from lull.model import defaults
from lull.model.text import terminal_text
from lull.ui.shared.waiting import SHOW_AFTER_SECONDS

SEPARATOR = " │ "
DEFAULT_WINDOW = 128_000  # shown until the runtime knows the model's window


@dataclass(frozen=True)
class StatusFacts:
    """Everything the status line is computed from (times are epoch seconds)."""

    state: str = "starting"
    provider: str = ""
    model: str = ""
    context_tokens: int | None = None
    context_window: int = DEFAULT_WINDOW
    last_response_at: float | None = None
    idle_handled: bool = False
    prompt_caching: bool = True
    cache_warm_until: float | None = None
    """When the provider's cache of the next prompt goes cold (the cache clock; None: cold)."""
    thinking_minutes: float = defaults.THINKING_THRESHOLD_MINUTES
    tool_results_minutes: float = defaults.TOOL_RESULTS_THRESHOLD_MINUTES
    cost_usd: float | None = None
    cache_hit_ratio: float | None = None
    usage_reported: bool = True
    waiting_since: float | None = None
    first_token_seconds: float | None = None
    watch_fraction: float = defaults.WATCH_THRESHOLD


@dataclass(frozen=True)
class Part:
    """One segment of the line: its full and short forms, and how important it is (0 = most)."""

    long: str
    short: str
    priority: int


def tokens(n: int) -> str:
    """A token count the way people read it: 950, 12.3k, 1.2M."""
    if n < 1000:
        return str(n)
    if n < 100_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


def duration(seconds: float) -> str:
    """A short duration: 45s, 4m, 1h05m."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def money(value: float) -> str:
    """Dollars with enough digits to see small sessions move."""
    if value < 0.01:
        return f"${value:.4f}"
    if value < 10:
        return f"${value:.3f}"
    return f"${value:,.2f}"


def context_warning(facts: StatusFacts) -> bool:
    """True when the context has reached the watch line (``context.compression.
    watchThreshold``): front ends show it in a warning colour."""
    if facts.context_tokens is None:
        return False
    return facts.context_tokens >= facts.watch_fraction * max(1, facts.context_window)


def context_part(facts: StatusFacts) -> Part | None:
    """``ctx 12.3k/200k 6%``."""
    if facts.context_tokens is None:
        return None
    window = max(1, facts.context_window)
    percent = round(100 * facts.context_tokens / window)
    long = f"ctx {tokens(facts.context_tokens)}/{tokens(window)} {percent}%"
    return Part(long, f"{tokens(facts.context_tokens)} {percent}%", 1)


def cache_part(facts: StatusFacts, now: float) -> Part | None:
    """``cache warm 4m`` (time left before the provider's cache expires), ``cache cold``, or
    ``cache off`` when prompt caching is turned off."""
    if not facts.prompt_caching:
        return Part("cache off", "no cache", 2) if facts.model else None
    left = (facts.cache_warm_until or now) - now
    if left > 0:
        return Part(f"cache warm {duration(left)}", f"warm {duration(left)}", 2)
    return Part("cache cold", "cold", 2) if facts.model else None


def hit_part(facts: StatusFacts) -> Part | None:
    """``hit 97%``: the share of this session's prompt tokens read from the cache (the first
    part to go when the line is too narrow: it has no short form)."""
    if facts.cache_hit_ratio is None or not facts.prompt_caching:
        return None
    return Part(f"hit {100 * facts.cache_hit_ratio:.0f}%", "", 5)


def idle_part(facts: StatusFacts, now: float) -> Part | None:
    """When idle cleanup will apply: ``tidy in 58m``, ``tidy on next message``, ``tidied``
    (a cleanup waits for its threshold and for the cache to go cold)."""
    if facts.last_response_at is None:
        return None
    thresholds = [t * 60 for t in (facts.thinking_minutes, facts.tool_results_minutes) if t >= 0]
    if not thresholds:
        return None
    if facts.idle_handled:
        return Part("tidied", "tidied", 3)
    elapsed = now - facts.last_response_at
    cold_in = max(0.0, (facts.cache_warm_until or now) - now) if facts.prompt_caching else 0.0
    wait = min(max(t - elapsed, cold_in) for t in thresholds)
    if wait > 0:
        left = duration(wait)
        return Part(f"tidy in {left}", f"tidy {left}", 3)
    return Part("tidy on next message", "tidy next", 3)


def state_part(facts: StatusFacts, now: float) -> Part | None:
    """What lull is doing; ``waiting 12s`` while the model has sent no token yet."""
    if facts.waiting_since is not None:
        waited = f"waiting {duration(now - facts.waiting_since)}"
        return Part(waited, waited, 0)
    return Part(facts.state, facts.state, 0) if facts.state else None


def first_token_part(facts: StatusFacts) -> Part | None:
    """``first token 12.3s``: how long the latest request waited for its first token, when
    that was long enough to notice (a slow local model)."""
    seconds = facts.first_token_seconds
    if seconds is None or seconds < SHOW_AFTER_SECONDS or facts.waiting_since is not None:
        return None
    return Part(f"first token {seconds:.1f}s", "", 6)  # the first part to go when narrow


def status_parts(facts: StatusFacts, now: float) -> list[Part]:
    """The segments of the line, in display order."""
    parts: list[Part] = []
    if (state := state_part(facts, now)) is not None:
        parts.append(state)
    if facts.model:
        long = f"{facts.provider} · {facts.model}" if facts.provider else facts.model
        parts.append(Part(long, facts.model, 0))
    for part in (
        context_part(facts),
        cache_part(facts, now),
        hit_part(facts),
        idle_part(facts, now),
    ):
        if part is not None:
            parts.append(part)
    if (first := first_token_part(facts)) is not None:
        parts.append(first)
    if not facts.usage_reported:
        parts.append(Part("usage not reported", "usage n/a", 4))
    elif facts.cost_usd is not None:
        parts.append(Part(money(facts.cost_usd), money(facts.cost_usd), 4))
    return parts


def fit(parts: list[Part], width: int) -> str:
    """Join ``parts`` within ``width`` cells: shorten the least important first, then drop them.

    A part whose short form is empty disappears when its level is shortened."""
    levels = sorted({p.priority for p in parts}, reverse=True)
    short: set[int] = set()  # priorities shown in their short form
    dropped: set[int] = set()  # priorities left out

    def line() -> str:
        shown = [p for p in parts if p.priority not in dropped]
        texts = (p.short if p.priority in short else p.long for p in shown)
        return SEPARATOR.join(text for text in texts if text)

    for level in levels:
        if len(line()) <= width:
            return line()
        short.add(level)
    for level in levels[:-1]:  # the most important parts always stay
        if len(line()) <= width:
            break
        dropped.add(level)
    text = line()
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def status_line(facts: StatusFacts, now: float, width: int) -> str:
    """The whole status line for a terminal ``width`` cells wide (a model name from a server
    shown, not obeyed: :func:`terminal_text`)."""
    return terminal_text(fit(status_parts(facts, now), width))


def warning_span(facts: StatusFacts, line: str) -> tuple[int, int] | None:
    """Where in ``line`` the context part stands, when it is to be shown in the warning
    colour (None when below the watch line or not shown)."""
    part = context_part(facts)
    if part is None or not context_warning(facts):
        return None
    for text in (part.long, part.short):
        start = line.find(text) if text else -1
        if start >= 0:
            return start, start + len(text)
    return None
