"""Thinking and idle cleanup as the user sees them: a collapsed block, a notice, the status."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lull.ui.tui.widgets.notice_line import NoticeLine
from lull.ui.tui.widgets.thinking_block import ThinkingBlock
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import CLEARED_PREFIX
from tests.tui.harness import idle, make_app, ready, send, until

GAP_SECONDS = 0.3
"""The idle threshold of the cleanup test: a gap the test can wait out."""


async def test_thinking_is_shown_then_collapsed_when_the_answer_starts(
    provider_env: FakeServer, workspace: Path
) -> None:
    settings = workspace / ".lull" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": {"thinking": True}}))
    provider_env.script(Reply(thinking="first I will look around the repo", text="Done."))
    app = make_app(workspace)
    async with app.run_test() as pilot:
        await ready(pilot)
        await send(pilot, "think first")
        await idle(pilot)
        block = app.query_one(ThinkingBlock)
        assert block.text == "first I will look around the repo"
        assert block.collapsed and block.title == "thought (7 words)"


async def test_idle_cleanup_shows_a_notice_and_the_status_counts_down(
    provider_env: FakeServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LULL_TOOL_RESULTS_THRESHOLD_MINUTES", str(GAP_SECONDS / 60))
    monkeypatch.setenv("LULL_TOOL_RESULTS_NUM_TO_KEEP", "1")
    monkeypatch.setenv("LULL_PROMPT_CACHING", "false")  # no warm cache for the cleanup to wait for
    for name in ("old", "new"):
        (workspace / f"{name}.txt").write_text(f"{name} " * 400)
    provider_env.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "old.txt"})]),
        Reply(tool_calls=[ToolUse("read_file", {"path": "new.txt"})]),
        Reply(text="read both"),
    )
    app = make_app(workspace)
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "read both files")
        await idle(pilot)
        session = app.chat.runtime.agent.session  # type: ignore[union-attr]
        answered = session.last_response_at
        assert answered is not None
        # the idle gap, measured from the last model response; the app runs meanwhile
        await until(pilot, lambda: time.time() - answered > GAP_SECONDS, "the idle gap")
        await send(pilot, "back again")
        await idle(pilot)
        edits = [n for n in app.query(NoticeLine) if n.level == "edit"]
        assert len(edits) == 1 and "cleared 1 tool result" in edits[0].text
        assert "tidy in" in app.status.line  # the countdown restarts from the new answer
    assert CLEARED_PREFIX in json.dumps(provider_env.requests[-1]["messages"])


async def test_an_idle_threshold_below_the_cache_lifetime_is_a_warning_at_start(
    provider_env: FakeServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LULL_THINKING_THRESHOLD_MINUTES", "0")
    app = make_app(workspace)
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        await idle(pilot)
        warnings = [n.text for n in app.query(NoticeLine) if n.level == "warning"]
        assert any(
            "thinkingThresholdMinutes is 0 min, shorter than the 5 min prompt-cache lifetime"
            in text
            for text in warnings
        ), warnings


async def test_the_context_turns_the_warning_colour_at_the_watch_line(
    provider_env: FakeServer, workspace: Path
) -> None:
    settings = workspace / ".lull" / "settings.json"
    settings.parent.mkdir()
    compression = {"watchThreshold": 0.3}
    settings.write_text(
        json.dumps({"model": {"contextWindow": 20_000}, "context": {"compression": compression}})
    )
    # An answer of about 9,000 tokens, streamed in a few large deltas: what fills the context
    # is its size, not thousands of small renders.
    many_words = " ".join(f"word{n}" for n in range(4000))
    provider_env.script(Reply(text=many_words, chunk_size=4000))
    app = make_app(workspace)
    async with app.run_test(size=(160, 30)) as pilot:
        await ready(pilot)
        await idle(pilot)
        assert app.status.warning == ""  # a fresh session is below 30% of the window
        await send(pilot, "talk")
        await idle(pilot)
        assert app.status.warning.startswith("ctx ") and app.status.warning.endswith("%")
