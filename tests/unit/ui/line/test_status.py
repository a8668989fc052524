"""Banner, toolbar, the line after a turn, and the recap of a resumed session."""

from __future__ import annotations

import io

from rich.console import Console

from lull.commands import context_breakdown
from lull.model.events import RequestFinished, TurnStarted
from lull.model.provider import Usage
from lull.runtime import Runtime
from lull.ui.line.render import EventPrinter
from lull.ui.line.status import (
    WARNING_STYLE,
    banner_lines,
    recap_lines,
    status_line,
    toolbar_fragments,
    turn_summary,
)
from tests.fakes import FakeServer, Reply
from tests.support import run


def test_banner_names_model_session_and_keys(runtime: Runtime) -> None:
    first, keys = banner_lines(runtime, "9.9")
    assert first == (
        f"lull 9.9 · line mode · claude-test (anthropic) · session {runtime.agent.session.id}"
    )
    assert "Enter sends · Esc+Enter or Ctrl+J: new line" in keys and "Ctrl+D quits" in keys


async def test_toolbar_shows_context_use_against_the_window(
    runtime: Runtime, fake: FakeServer
) -> None:
    runtime.loaded.set("model.contextWindow", 1000, "--test")
    fake.script(Reply(text="word " * 200))
    await run(runtime.agent, "talk")
    tokens = context_breakdown(runtime.agent, 1000).total
    line = status_line(runtime)
    assert line.startswith(f" claude-test · context ~{tokens:,} tokens ({tokens / 10:.0f}%)")
    assert "cache hit 0%" in line  # one request: everything was written, nothing read yet
    assert line.endswith("Esc+Enter or Ctrl+J: new line · /help")


def test_turn_summary_counts_requests_and_cache_share(runtime: Runtime) -> None:
    printer = EventPrinter(Console(file=io.StringIO()))
    printer.render(TurnStarted("x"))
    printer.render(RequestFinished(Usage(input=100, cache_read=300, output=20), 1, 0))
    printer.render(RequestFinished(Usage(cache_read=400, output=30), 2, 0))
    summary = turn_summary(runtime, printer)
    assert summary.startswith("2 requests: 800 prompt tokens (88% from cache), 50 output")


async def test_recap_shows_the_last_exchange(runtime: Runtime, fake: FakeServer) -> None:
    assert recap_lines(runtime.agent.session) == []
    fake.script(Reply(text="Paris,\nof course."))
    await run(runtime.agent, "capital of\nFrance?")
    session = runtime.agent.session
    assert recap_lines(session) == [
        f"session {session.id}: 2 messages",
        "  you:  capital of France?",
        "  lull: Paris, of course.",
    ]


async def test_the_toolbar_shows_the_context_in_the_warning_colour_at_the_watch_line(
    runtime: Runtime, fake: FakeServer
) -> None:
    runtime.loaded.set("model.contextWindow", 1_000_000, "--test")
    assert all(style == "" for style, _ in toolbar_fragments(runtime))
    runtime.loaded.set("context.compression.watchThreshold", 0.001, "--test")
    fragments = toolbar_fragments(runtime)
    [(style, text)] = [f for f in fragments if f[0]]
    assert style == WARNING_STYLE and text.startswith("context ~")
    assert "".join(t for _, t in fragments) == status_line(runtime)
