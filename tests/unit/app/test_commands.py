"""Slash commands against a real agent (official SDK, strict fake server, saved sessions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.catalog.pricing import cost_usd
from app.commands import (
    COMMANDS,
    CommandResult,
    cache_hit_ratio,
    command_names,
    context_window,
    format_cost,
    resume_session,
    run_command,
    session_cost,
)
from app.context.cachebreak import CacheBreakDetector, find_detector
from app.model.events import Event, TurnFinished
from app.model.provider import Usage
from app.runtime import Runtime
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import run
from tests.unit.ui.support import fake_runtime


@pytest.fixture
def runtime(fake: FakeServer, workspace: Path, tmp_path: Path) -> Runtime:
    return fake_runtime(fake, workspace, tmp_path)


def _text(result: CommandResult) -> str:
    return "\n".join(result.lines)


async def _drive(result: CommandResult) -> list[Event]:
    assert result.stream is not None
    return [event async for event in result.stream]


# --- dispatch ----------------------------------------------------------------------------


def test_help_lists_every_visible_command_with_its_usage(runtime: Runtime) -> None:
    text = _text(run_command(runtime, "/help"))
    for name in ("help", "clear", "resume", "model", "context", "compact", "cost", "settings"):
        assert f"/{name}" in text
    assert "/quit" in text and "/exit" not in text
    assert [c.name for c in command_names()][:2] == ["help", "clear"]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("/contxt", "unknown command /contxt; did you mean /context? type /help for the list"),
        ("/zzz", "unknown command /zzz; type /help for the list"),
        ("/c", "/c is ambiguous: /clear, /context, /compact, /cost"),
        ("/", "type a command after /, e.g. /help"),
        ("/cost extra", "/cost takes no argument (got 'extra')"),
        ("/context bogus", "unknown /context argument 'bogus'; try /context or /context restore"),
        ("/model two words", "a model name has no spaces (got 'two words'); usage: /model NAME"),
        ("/clear now", "/clear takes no argument (got 'now')"),
        ("/settings nosuch", "no setting starts with 'nosuch'; try /settings or /settings model"),
    ],
)
def test_bad_input_gets_a_one_line_hint(runtime: Runtime, typed: str, expected: str) -> None:
    result = run_command(runtime, typed)
    assert result.error and result.lines == (expected,)
    assert not result.quit and result.stream is None


def test_a_unique_prefix_and_any_case_run_the_command(runtime: Runtime) -> None:
    assert run_command(runtime, "/QUIT").quit
    assert run_command(runtime, "/mod").lines[0].startswith("model: claude-test")
    assert run_command(runtime, "/exit").quit


def test_a_bare_agent_gets_a_hint_for_commands_needing_the_runtime(runtime: Runtime) -> None:
    agent = runtime.agent
    for typed in ("/clear", "/resume", "/settings", "/model other"):
        result = run_command(agent, typed)
        assert result.error and "is not available here" in result.lines[0]
    assert run_command(agent, "/model").lines == ("model: claude-test",)
    assert not run_command(agent, "/context").error


# --- /context ----------------------------------------------------------------------------


async def test_context_breaks_the_prompt_down_by_kind(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("several plain words " * 300)
    fake.script(
        Reply(thinking="let me look " * 40, tool_calls=[ToolUse("read_file", {"path": "big.txt"})]),
        Reply(text="it is all x"),
    )
    await run(runtime.agent.with_config(), "what is in big.txt?")
    runtime.loaded.set("model.contextWindow", 20_000, "--test")
    lines = run_command(runtime, "/context").lines

    assert lines[0].startswith("context: ~") and "of 20,000 tokens" in lines[0]
    bar = lines[1]
    assert bar.startswith("[") and bar.endswith("]") and len(bar) == 42
    rows = {line.split()[1]: line for line in lines[2:9]}
    tokens = {
        label: int(rows[label].split()[-2].replace(",", ""))
        for label in ("system", "tools", "messages", "tool", "thinking", "free")
    }
    assert tokens["tool"] >= 500  # the 6000-character file
    assert tokens["thinking"] > 100 and tokens["system"] > 0 and tokens["tools"] > 0
    assert sum(tokens.values()) == 20_000
    assert "░" in bar and "▞" in bar
    assert "no context edits: the model sees the whole transcript" in lines


def test_context_window_uses_the_setting_over_the_model_table(runtime: Runtime) -> None:
    runtime.loaded.set("model.contextWindow", 12_345, "--test")
    assert context_window(runtime) == 12_345


# --- /cost -------------------------------------------------------------------------------


async def test_cost_reports_the_session_usage_by_kind(runtime: Runtime, fake: FakeServer) -> None:
    fake.script(Reply(text="one"), Reply(text="two"))
    await run(runtime.agent, "first")
    await run(runtime.agent, "second")
    usage = runtime.agent.session.usage
    lines = run_command(runtime, "/cost").lines

    assert lines[0] == (
        f"tokens: input {usage.input:,} · cache read {usage.cache_read:,} · "
        f"cache write {usage.cache_write:,} · output {usage.output:,}"
    )
    assert usage.cache_read > 0  # the second request read the first one's prefix
    ratio = usage.cache_read / (usage.input + usage.cache_read + usage.cache_write)
    assert lines[1] == f"cache hit ratio: {100 * ratio:.1f}% (cache read / whole prompt)"
    assert lines[2] == "requests: 2"
    last = fake.journal[-1].usage
    assert last is not None
    prompt = sum(last[k] for k in ("input_tokens", "cache_read_input_tokens"))
    prompt += last["cache_creation_input_tokens"]
    assert lines[3].startswith(f"last request: {prompt:,} prompt tokens (")
    assert session_cost(runtime) is None  # claude-test has no price
    assert lines[4] == "cost: price unknown for claude-test"


async def test_cost_says_when_prompt_caching_is_off(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    runtime = fake_runtime(fake, workspace, tmp_path, prompt_caching=False)
    fake.script(Reply(text="one"))
    await run(runtime.agent, "first")
    lines = run_command(runtime, "/cost").lines
    assert lines[1] == "cache hit ratio: 0.0% (cache read / whole prompt)"
    assert lines[2] == "prompt caching is off (context.cache.enabled = false)"


def test_cache_hit_ratio_and_cost_formatting() -> None:
    assert cache_hit_ratio(Usage()) is None
    assert cache_hit_ratio(Usage(input=10, cache_read=80, cache_write=10)) == 0.8
    assert format_cost(None) == "price unknown"
    assert format_cost(0.01234) == "$0.0123"
    assert format_cost(1234.5) == "$1,234.50"


def test_each_model_is_priced_at_its_own_rates(runtime: Runtime) -> None:
    session = runtime.agent.session
    session.record_response(1.0, Usage(input=1_000_000), "claude-sonnet-4-5")
    session.record_response(2.0, Usage(input=1_000_000, output=1000), "claude-opus-4-5")
    sonnet = cost_usd(Usage(input=1_000_000), "claude-sonnet-4-5")
    opus = cost_usd(Usage(input=1_000_000, output=1000), "claude-opus-4-5")
    assert sonnet is not None and opus is not None and opus > sonnet
    lines = run_command(runtime, "/cost").lines
    assert lines[-2] == (
        "last request: 1,000,000 prompt tokens (0% from cache), 1,000 output, " + format_cost(opus)
    )
    assert lines[-1] == (
        f"cost: {format_cost(sonnet + opus)} at claude-sonnet-4-5, claude-opus-4-5 prices"
    )
    session.record_response(3.0, Usage(input=10), "house-model")
    assert run_command(runtime, "/cost").lines[-1] == (
        "cost: price unknown for claude-sonnet-4-5, claude-opus-4-5, house-model"
    )


# --- /model ------------------------------------------------------------------------------


async def test_model_switch_keeps_the_session_and_changes_the_requests(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="before"), Reply(text="after"))
    await run(runtime.agent, "hello")
    session_id = runtime.agent.session.id

    result = run_command(runtime, "/model claude-other")
    assert result.lines[0].startswith("model: claude-other from the next request on")
    assert runtime.provider_config.model == "claude-other"
    assert run_command(runtime, "/model").lines[0].startswith("model: claude-other (provider")

    events = await run(runtime.agent, "and now?")
    assert any(isinstance(e, TurnFinished) for e in events)
    assert fake.requests[-1]["model"] == "claude-other"
    assert runtime.agent.session.id == session_id
    assert len(fake.requests[-1]["messages"]) == 3  # the history came along
    assert run_command(runtime, "/model claude-other").lines == ("already using claude-other",)


# --- /clear and /resume ------------------------------------------------------------------


async def test_clear_starts_an_empty_session_and_keeps_the_old_one(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="remember 42"), Reply(text="fresh"))
    await run(runtime.agent, "the number is 42")
    old = runtime.agent.session
    runtime.agent.tools.always_allowed.add("run_shell_command")

    result = run_command(runtime, "/clear")
    assert result.session_changed
    assert result.lines[1] == f"the previous one is saved: lull --resume {old.id}"
    assert runtime.agent.session.id != old.id and not runtime.agent.session.transcript
    assert not runtime.agent.tools.always_allowed
    assert runtime.store.path_for(old.id).is_file()

    await run(runtime.agent, "what number?")
    assert "42" not in json.dumps(fake.requests[-1]["messages"])


async def test_resume_lists_saved_sessions_and_switches_to_the_chosen_one(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="noted"), Reply(text="other"), Reply(text="I remember"))
    await run(runtime.agent, "the   secret word\nis tangerine")
    first = runtime.agent.session.id
    run_command(runtime, "/clear")
    await run(runtime.agent, "unrelated")
    run_command(runtime, "/clear")  # an empty session: never offered

    listing = run_command(runtime, "/resume")
    assert [c.id for c in listing.sessions][-1] == first
    chosen = next(c for c in listing.sessions if c.id == first)
    assert chosen.first_prompt == "the secret word is tangerine"
    assert chosen.message_count == 2
    assert any(first[:8] in line and "tangerine" in line for line in listing.lines)

    result = resume_session(runtime, first[:8])
    assert result.session_changed and result.lines[0] == f"resumed session {first} (2 messages)"
    assert runtime.agent.session.id == first and runtime.resumed
    await run(runtime.agent, "what was the word?")
    assert "tangerine" in json.dumps(fake.requests[-1]["messages"])


def test_resume_says_what_is_wrong_with_an_id(runtime: Runtime) -> None:
    assert run_command(runtime, "/resume").lines == ("no other saved session in this workspace",)
    missing = run_command(runtime, "/resume nosuchid")
    assert missing.error and "no saved session 'nosuchid'" in missing.lines[0]
    current = runtime.agent.session.id
    assert run_command(runtime, f"/resume {current}").lines == (f"already in session {current}",)


# --- /settings, /compact, /quit ----------------------------------------------------------


def test_settings_show_values_and_where_they_came_from(runtime: Runtime) -> None:
    runtime.loaded.set("model.name", "claude-test", "--model")
    lines = run_command(runtime, "/settings model").lines
    assert all(line.startswith("model.") for line in lines)
    name = next(line for line in lines if line.startswith("model.name "))
    assert name.split() == ["model.name", '"claude-test"', "(--model)"]
    thinking = next(line for line in lines if line.startswith("model.thinking "))
    assert thinking.endswith("(default)")
    everything = run_command(runtime, "/settings").lines
    assert any(line.startswith("context.clearContextOnIdle.") for line in everything)


async def test_compact_returns_a_stream_the_front_end_drives(
    runtime: Runtime, fake: FakeServer
) -> None:
    if not hasattr(runtime.agent, "compact"):
        pytest.skip("Agent.compact is not in this build")
    fake.script(Reply(text="a long answer " * 50), Reply(text="## Goal\nsummary of the talk"))
    await run(runtime.agent, "tell me a lot " * 20)
    result = run_command(runtime, "/compact the goal")
    assert result.lines == ("compacting the conversation (focus: the goal)",)
    events = await _drive(result)
    assert events  # what happened (an edit or a notice) is reported as events


def test_quit_and_exit_leave(runtime: Runtime) -> None:
    assert run_command(runtime, "/quit").quit
    assert "quit" in COMMANDS and COMMANDS["exit"].hidden


async def test_context_reports_prompt_cache_breaks_and_clear_starts_a_fresh_detector(
    runtime: Runtime, fake: FakeServer
) -> None:
    session = runtime.agent.session
    runtime.agent.request_hooks.append(CacheBreakDetector(lambda: session.edits))
    fake.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    await run(runtime.agent, "first")
    await run(runtime.agent, "second")
    assert "prompt cache: no prefix change in 2 requests" in run_command(runtime, "/context").lines

    tool = runtime.agent.tools.registry.get("read_file")
    assert tool is not None
    tool.description = "Read a file (a description changed on purpose)."
    await run(runtime.agent, "third")
    run_command(runtime, "/model claude-opus-4-5")
    fake.script(Reply(text="four"))
    await run(runtime.agent, "fourth")
    lines = run_command(runtime, "/context").lines
    assert "prompt cache: 2 prefix change(s) in 4 requests" in " ".join(lines)
    assert (
        "  prompt cache break at request 4: model changed from claude-test to claude-opus-4-5 "
        "(expected: the model changed (each model has its own cache))"
    ) in lines
    assert (
        "  prompt cache break at request 3: tool read_file description changed (unexpected)"
    ) in lines

    run_command(runtime, "/clear")
    detector = find_detector(runtime.agent.request_hooks)
    assert detector is not None and detector.requests == 0
    await run(runtime.agent, "new topic")
    await run(runtime.agent, "more")
    assert detector.unexpected == []  # the new session is not compared with the old one
