"""Short status texts: the banner, the prompt toolbar, the line after a turn, a recap."""

from __future__ import annotations

from lull.commands import format_cost
from lull.engine.sessions.session import Session
from lull.runtime import Runtime
from lull.ui.line.render import EventPrinter
from lull.ui.shared.facts import facts_for
from lull.ui.shared.status import context_warning
from lull.ui.shared.waiting import SHOW_AFTER_SECONDS

NEWLINE_KEYS = "Esc+Enter or Ctrl+J"
PREVIEW_WIDTH = 160
WARNING_STYLE = "fg:ansiyellow bold"
"""prompt-toolkit style of the context part from the watch line on."""
Fragments = list[tuple[str, str]]
"""(style, text) pairs: prompt-toolkit's formatted text."""


def banner_lines(runtime: Runtime, version: str) -> list[str]:
    """What the line mode prints when it starts."""
    config = runtime.provider_config
    return [
        f"lull {version} · line mode · {config.model} ({config.provider}) · "
        f"session {runtime.agent.session.id}",
        f"Enter sends · {NEWLINE_KEYS}: new line · @path attaches a file · /help lists "
        "commands · Ctrl+C interrupts · Ctrl+D quits",
    ]


def toolbar_fragments(runtime: Runtime) -> Fragments:
    """The prompt toolbar as styled fragments: model, context used (in the warning colour
    from the watch line on), cache hits, session cost, the newline keys."""
    facts = facts_for(runtime, "")
    tokens, window = facts.context_tokens or 0, facts.context_window
    share = 100 * tokens / window if window else 0.0
    ratio = facts.cache_hit_ratio
    hits = f"cache hit {100 * ratio:.0f}% · " if ratio is not None else ""
    cost = format_cost(facts.cost_usd) if facts.usage_reported else "usage not reported"
    style = WARNING_STYLE if context_warning(facts) else ""
    return [
        ("", f" {facts.model} · "),
        (style, f"context ~{tokens:,} tokens ({share:.0f}%)"),
        ("", f" · {hits}{cost} · {NEWLINE_KEYS}: new line · /help"),
    ]


def status_line(runtime: Runtime) -> str:
    """The prompt toolbar as plain text."""
    return "".join(text for _, text in toolbar_fragments(runtime))


def turn_summary(runtime: Runtime, printer: EventPrinter) -> str:
    """One line after a turn: requests, prompt and output tokens, cache share, cost, and the
    longest wait for a first token when it was noticeable."""
    usage = printer.turn_usage
    ratio = usage.cache_hit_ratio
    cached = f" ({100 * ratio:.0f}% from cache)" if ratio is not None else ""
    requests = printer.turn_requests
    counted = f"{usage.prompt_tokens:,} prompt tokens{cached}, {usage.output:,} output"
    if usage.unknown:
        estimate = printer.context_tokens
        counted = "usage not reported by the server" + (
            f" (context ~{estimate:,} tokens, estimated)" if estimate is not None else ""
        )
    cost = format_cost(runtime.session_cost()) if usage.reported else "cost unknown"
    longest = printer.wait.turn_longest
    waited = f" · first token after {longest:.1f}s" if longest >= SHOW_AFTER_SECONDS else ""
    return f"{requests} request{'s' if requests != 1 else ''}: {counted} · session {cost}{waited}"


def recap_lines(session: Session) -> list[str]:
    """A reminder of where a session stands: its size and the last exchange."""
    messages = session.shown()
    if not messages:
        return []
    lines = [f"session {session.id}: {len(messages)} messages"]
    prompt = next((m.text for m in reversed(messages) if m.origin == "user" and m.text), "")
    answer = next((m.text for m in reversed(messages) if m.role == "assistant" and m.text), "")
    if prompt:
        lines.append(f"  you:  {_preview(prompt)}")
    if answer:
        lines.append(f"  lull: {_preview(answer)}")
    return lines


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_WIDTH else flat[: PREVIEW_WIDTH - 1] + "…"
