"""/cost: tokens by kind, the cache hit ratio and money, each model at its own prices.

Against a real agent: the official SDK and the strict fake server, saved sessions.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lull.catalog.pricing import cost_usd
from lull.commands import (
    format_cost,
    run_command,
)
from lull.model.provider import Usage
from lull.runtime import Runtime
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import fake_runtime, run


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
    assert runtime.session_cost() == 0  # claude-test has no price, and runs on loopback
    assert lines[4] == (
        "cost: $0.0000 at claude-test prices "
        "(claude-test: $0 on a local server; the pricing setting sets a price)"
    )


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
    assert Usage().cache_hit_ratio is None
    assert Usage(input=10, cache_read=80, cache_write=10).cache_hit_ratio == 0.8
    assert format_cost(None) == "price unknown"
    assert format_cost(0.01234) == "$0.0123"
    assert format_cost(1234.5) == "$1,234.50"


def _remote(runtime: Runtime) -> Runtime:
    """The same session, as if its requests went to Anthropic's API (nothing is sent): models
    are priced there; on the loopback fake every model runs on "a local server", at $0."""
    remote = replace(runtime.provider_config, base_url="https://api.anthropic.com")
    return Runtime(runtime.agent, runtime.loaded, remote, runtime.store)


def test_each_model_is_priced_at_its_own_rates(runtime: Runtime) -> None:
    session = runtime.agent.session
    session.record_response(1.0, Usage(input=1_000_000), "claude-sonnet-4-5")
    session.record_response(2.0, Usage(input=1_000_000, output=1000), "claude-opus-4-5")
    sonnet = cost_usd(Usage(input=1_000_000), "claude-sonnet-4-5")
    opus = cost_usd(Usage(input=1_000_000, output=1000), "claude-opus-4-5")
    assert sonnet is not None and opus is not None and opus > sonnet
    elsewhere = _remote(runtime)
    lines = run_command(elsewhere, "/cost").lines
    assert lines[-2] == (
        "last request: 1,000,000 prompt tokens (0% from cache), 1,000 output, " + format_cost(opus)
    )
    assert lines[-1] == (
        f"cost: {format_cost(sonnet + opus)} at claude-sonnet-4-5, claude-opus-4-5 prices"
    )
    session.record_response(3.0, Usage(input=10), "house-model")
    assert run_command(elsewhere, "/cost").lines[-1] == (
        "cost: price unknown for claude-sonnet-4-5, claude-opus-4-5, house-model"
    )
    # the fake is on loopback: every model there runs on the user's own hardware
    assert run_command(runtime, "/cost").lines[-1] == (
        f"cost: {format_cost(0.0)} at claude-sonnet-4-5, claude-opus-4-5, house-model prices "
        "(claude-sonnet-4-5, claude-opus-4-5, house-model: $0 on a local server; the pricing "
        "setting sets a price)"
    )


def test_cost_shows_the_split_between_the_conversation_and_its_sub_agents(
    runtime: Runtime,
) -> None:
    from lull.engine.sessions.record import SubagentRun

    session = runtime.agent.session
    session.record_response(1.0, Usage(input=1_000_000), "claude-sonnet-4-5")
    child = Usage(input=2_000_000, output=1000)
    session.record_subagent(
        SubagentRun("t1", "0123456789abcdef", "general", {"claude-sonnet-4-5": child})
    )
    own = cost_usd(Usage(input=1_000_000), "claude-sonnet-4-5")
    sub = cost_usd(child, "claude-sonnet-4-5")
    assert own is not None and sub is not None
    lines = run_command(_remote(runtime), "/cost").lines
    assert (
        "sub-agents: 1 run(s), input 2,000,000 · output 1,000 tokens, "
        f"{format_cost(sub)} (their sessions: 01234567)"
    ) in lines
    assert f"split: this conversation {format_cost(own)} + sub-agents {format_cost(sub)}" in lines
    assert lines[-1] == f"cost: {format_cost(own + sub)} at claude-sonnet-4-5 prices"


async def test_cost_shows_per_tool_figures_and_a_resume_shows_the_same(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "a.py").write_text("print('a')\n" * 40)
    fake.script(
        Reply(
            tool_calls=[
                ToolUse("read_file", {"path": "a.py"}),
                ToolUse("glob", {"pattern": "*.py"}),
            ]
        ),
        Reply(tool_calls=[ToolUse("read_file", {"path": "missing.py"})]),
        Reply(text="read"),
    )
    await run(runtime.agent, "look")
    lines = run_command(runtime, "/cost").lines
    table = lines[lines.index(next(x for x in lines if x.startswith("tools:"))) :]
    assert table[0].split() == [
        "tools:",
        "calls",
        "failed",
        "time",
        "output",
        "cleared",
        "recalled",
        "pointers",
    ]
    read = table[1].split()
    assert read[:3] == ["read_file", "2", "1"] and read[3].endswith("s")
    assert read[5:] == ["0", "0", "0"]
    assert table[2].split()[:3] == ["glob", "1", "0"]
    session = runtime.agent.session
    assert set(session.record.tool_seconds) == {
        c.id for m in session.transcript for c in m.tool_calls
    }

    first = session.id
    runtime.new_session()
    runtime.resume(first)
    again = run_command(runtime, "/cost").lines
    assert again[again.index(table[0]) :] == table
