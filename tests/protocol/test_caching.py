"""Prompt caching end to end: the real agent, SDKs and tools against the fake's cache simulation.

Checks what a user pays for: every request reads what the previous one wrote, prefixes stay
byte-identical (also across a resume), the detector names a real cache break and keeps quiet
about an idle cleanup, and lull's usage totals are exactly what the server reported.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from lull.catalog.prompt import STATIC_SYSTEM_PROMPT
from lull.context.cachebreak import CacheBreakDetector
from lull.context.idle import IdlePolicy
from lull.engine.loop.agent import Agent
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.provider import ThinkingConfig, Usage
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import Clock, FakeTime, build_agent, run

ENVIRONMENT = "# Environment\n- Workspace: /ws\n- Today's date: 2026-11-22"
FILES = {f"src/mod{i}.py": f"def function_{i}():\n    return {i}\n" * 120 for i in range(12)}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def agent_for(
    fake: FakeServer, workspace: Path, clock: Clock, vendor: str = "anthropic", **config: Any
) -> Agent:
    """A real agent with lull's static prompt, an environment, thinking on, and a detector."""
    config.setdefault("thinking", ThinkingConfig(True, 2048))
    config.update(system=STATIC_SYSTEM_PROMPT, environment=ENVIRONMENT)
    agent = build_agent(fake, workspace, workspace.parent, vendor, clock=clock, **config)
    agent.request_hooks.append(CacheBreakDetector(lambda: agent.session.edits))
    return agent


def detector(agent: Agent) -> CacheBreakDetector:
    found = [h for h in agent.request_hooks if isinstance(h, CacheBreakDetector)]
    return found[0]


def reads(*names: str) -> Reply:
    return Reply(
        thinking="I need to read these files first.",
        tool_calls=[ToolUse("read_file", {"path": n}) for n in names],
    )


def answer(text: str = "Done.") -> Reply:
    return Reply(thinking="That is enough to answer.", text=text)


def usages(fake: FakeServer) -> list[dict[str, Any]]:
    return [e.usage for e in fake.journal if e.status == 200 and e.usage is not None]


def prompt_size(usage: dict[str, Any]) -> int:
    return int(
        usage["input_tokens"]
        + usage["cache_read_input_tokens"]
        + usage["cache_creation_input_tokens"]
    )


async def test_every_request_reads_everything_the_previous_one_wrote(
    fake: FakeServer, workspace: Path
) -> None:
    clock = FakeTime(fake)
    agent = agent_for(fake, workspace, clock)
    twelve = [f"src/mod{i}.py" for i in range(12)]
    fake.script(reads("src/mod0.py"), reads(*twelve), reads("src/mod1.py"), answer())
    await run(agent, "Read the whole package.")
    clock.advance_minutes(3)
    fake.script(reads("src/mod2.py"), answer("All good."))
    await run(agent, "And the second module again?")
    seen = usages(fake)
    assert len(seen) == 6
    for before, after in itertools.pairwise(seen):
        assert after["cache_read_input_tokens"] == prompt_size(before)
        assert after["input_tokens"] == 0
    assert detector(agent).breaks == []


def without_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_markers(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_markers(v) for v in value]
    return value


def prefix_bytes(body: dict[str, Any], messages: int) -> str:
    clean = without_markers(body)
    return json.dumps([clean["tools"], clean["system"], clean["messages"][:messages]])


async def test_prefixes_are_byte_identical_across_requests_and_a_resume(
    fake: FakeServer, workspace: Path
) -> None:
    clock = FakeTime(fake)
    agent = agent_for(fake, workspace, clock)
    fake.script(reads("src/mod0.py", "src/mod1.py"), answer())
    await run(agent, "Look at mod0 and mod1.")
    path = agent.session.path
    assert path is not None
    agent.session.close()
    clock.advance_minutes(2)
    store = SessionStore(workspace.parent / "sessions", workspace)
    resumed = agent_for(fake, workspace, clock, session=Session.resume(store, path))
    fake.script(reads("src/mod2.py"), answer())
    await run(resumed, "Now mod2, please.")
    bodies = fake.requests
    assert len(bodies) == 4
    for before, after in itertools.pairwise(bodies):
        count = len(before["messages"])
        assert prefix_bytes(after, count) == prefix_bytes(before, count)
    first_after_resume = usages(fake)[2]
    assert first_after_resume["cache_read_input_tokens"] == prompt_size(usages(fake)[1])


async def test_detector_names_a_changed_tool_and_keeps_quiet_about_idle_cleanup(
    fake: FakeServer, workspace: Path
) -> None:
    clock = FakeTime(fake)
    agent = agent_for(fake, workspace, clock)
    fake.script(*(reads(f"src/mod{i}.py") for i in range(7)), answer())
    await run(agent, "Read seven modules.")
    clock.advance_minutes(70)
    fake.script(answer("Welcome back."))
    await run(agent, "Back from lunch.")
    [cleanup] = detector(agent).breaks
    assert cleanup.expected and cleanup.cause.startswith("idle cleanup")
    tool = agent.tools.registry.get("read_file")
    assert tool is not None
    tool.description = "Read a file (now with a changed description)."
    fake.script(answer("Same answer."))
    await run(agent, "Anything else?")
    changed = detector(agent).breaks[-1]
    assert (changed.block, changed.change, changed.expected) == (
        "tool read_file",
        "description changed",
        False,
    )
    assert usages(fake)[-1]["cache_read_input_tokens"] == 0, "a tool change costs the whole cache"


def reported(entry: dict[str, Any], api: str) -> Usage:
    """What the fake said, in lull's terms, computed independently of the providers."""
    if api == "anthropic":
        return Usage(
            input=entry["input_tokens"],
            output=entry["output_tokens"],
            cache_read=entry["cache_read_input_tokens"],
            cache_write=entry["cache_creation_input_tokens"],
            cache_write_1h=entry["cache_creation"]["ephemeral_1h_input_tokens"],
        )
    cached = entry["prompt_tokens_details"]["cached_tokens"]
    return Usage(
        input=entry["prompt_tokens"] - cached,
        output=entry["completion_tokens"],
        cache_read=cached,
        reasoning=entry["completion_tokens_details"]["reasoning_tokens"],
    )


@pytest.mark.parametrize(
    ("vendor", "ttl"),
    [("anthropic", "5m"), ("anthropic", "1h"), ("openai", "5m"), ("deepseek", "5m")],
)
async def test_usage_totals_equal_what_the_server_reported(
    fake: FakeServer, workspace: Path, vendor: str, ttl: str
) -> None:
    clock = FakeTime(fake)
    agent = agent_for(fake, workspace, clock, vendor, cache_ttl=ttl)
    fake.script(reads("src/mod0.py", "src/mod1.py"), reads("src/mod2.py"), answer())
    await run(agent, "Read three modules.")
    clock.advance_minutes(8)
    fake.script(reads("src/mod3.py"), answer())
    await run(agent, "One more.")
    api = "anthropic" if vendor == "anthropic" else "openai"
    expected = sum((reported(u, api) for u in usages(fake)), Usage())
    assert agent.session.usage == expected
    assert expected.cache_read > 0
    if ttl == "1h":
        assert expected.cache_write_1h == expected.cache_write > 0


async def test_one_hour_ttl_keeps_the_cache_through_a_half_hour_break(
    fake: FakeServer, workspace: Path
) -> None:
    clock = FakeTime(fake)
    no_thinking_cleanup = IdlePolicy(thinking_threshold_minutes=-1)
    agent = agent_for(fake, workspace, clock, cache_ttl="1h", idle=no_thinking_cleanup)
    fake.script(reads("src/mod0.py"), answer())
    await run(agent, "Read mod0.")
    clock.advance_minutes(30)
    fake.script(answer("Still here."))
    await run(agent, "Back after a meeting.")
    before, after = usages(fake)[-2:]
    assert after["cache_read_input_tokens"] == prompt_size(before)


async def test_with_prompt_caching_off_nothing_is_marked_and_nothing_is_cached(
    fake: FakeServer, workspace: Path
) -> None:
    agent = agent_for(fake, workspace, FakeTime(fake), prompt_caching=False)
    fake.script(reads("src/mod0.py", "src/mod1.py"), reads("src/mod2.py"), answer())
    await run(agent, "Read three modules.")
    assert len(fake.requests) == 3
    assert all("cache_control" not in json.dumps(body) for body in fake.requests)
    assert agent.session.usage.cache_read == agent.session.usage.cache_write == 0
    assert agent.session.usage.input == sum(prompt_size(u) for u in usages(fake))


@pytest.mark.parametrize("vendor", ["openai", "kimi"])
async def test_openai_compatible_requests_carry_the_session_as_cache_key(
    fake: FakeServer, workspace: Path, vendor: str
) -> None:
    agent = agent_for(fake, workspace, FakeTime(fake), vendor)
    fake.script(answer())
    await run(agent, "hi")
    assert fake.requests[-1]["prompt_cache_key"] == agent.session.id


def marker_ttls(body: dict[str, Any]) -> list[str]:
    """The lifetimes of a request's cache markers, in the order the API processes them."""
    found: list[str] = []
    blocks = [*body.get("tools", []), *body.get("system", [])]
    blocks += [b for m in body["messages"] for b in m["content"]]
    for block in blocks:
        marker = block.get("cache_control")
        if marker is not None:
            found.append(marker.get("ttl", "5m"))
    return found


async def test_auto_ttl_puts_the_stable_part_on_the_hour_cache_after_medium_pauses(
    fake: FakeServer, workspace: Path
) -> None:
    clock = FakeTime(fake)
    agent = agent_for(fake, workspace, clock, cache_ttl="auto", idle=IdlePolicy(-1, -1))
    fake.script(reads("src/mod0.py", "src/mod1.py"), reads("src/mod2.py"), answer())
    await run(agent, "Read three modules.")
    assert all(set(marker_ttls(b)) == {"5m"} for b in fake.requests)  # no pause seen yet
    for n in range(4):  # 20-minute pauses: a five-minute cache is cold after each
        clock.advance_minutes(20)
        fake.script(*(reads(f"src/mod{3 + n + k}.py") for k in range(3)), answer())
        await run(agent, f"Modules {3 + n} to {5 + n}, please.")
    mixed = [marker_ttls(b) for b in fake.requests if len(set(marker_ttls(b))) == 2]
    assert mixed, "the stable part never went on the one-hour cache"
    for ttls in mixed:  # accepted by the strict fake: 1h first, at most four
        assert len(ttls) <= 4 and ttls == sorted(ttls, key=lambda t: t != "1h")
    before, after = usages(fake)[-5], usages(fake)[-4]  # across the last 20-minute pause
    assert after["cache_read_input_tokens"] > 0.5 * prompt_size(before)
    assert usages(fake)[-3]["cache_creation"]["ephemeral_5m_input_tokens"] > 0  # the tail


async def test_the_fake_refuses_a_five_minute_marker_before_a_one_hour_one(
    fake: FakeServer,
) -> None:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="test", base_url=fake.url)
    five, hour = {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}
    system = [{"type": "text", "text": "a" * 5000, "cache_control": five}]
    message = {"role": "user", "content": [{"type": "text", "text": "b", "cache_control": hour}]}
    with pytest.raises(anthropic.BadRequestError, match="must not come after"):
        await client.messages.create(
            model="claude-test", max_tokens=10, system=system, messages=[message]
        )
