"""Idle cleanup in the running engine: when it fires, what the provider receives, restore."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lull.commands import run_command
from lull.context.idle import IdlePolicy
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.edits import ClearThinking, ClearToolResults
from lull.model.events import ContextEdited, RequestFinished
from lull.model.messages import is_cleared_text
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import CLEARED_PREFIX, AgentFactory, Clock, run, runtime_for

POLICY = IdlePolicy(
    thinking_threshold_minutes=5, tool_results_threshold_minutes=60, tool_results_num_to_keep=1
)


def _read_replies(names: list[str], thinking: bool = False) -> list[Reply]:
    replies = [
        Reply(
            thinking=f"I will read {n}." if thinking else None,
            tool_calls=[ToolUse("read_file", {"path": n})],
        )
        for n in names
    ]
    return [*replies, Reply(thinking="Done reading." if thinking else None, text="read them all")]


def _result_texts(body: dict[str, Any]) -> list[str]:
    texts = []
    for message in body["messages"]:
        if message["role"] == "tool":
            texts.append(message["content"])
        if isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    texts.append(
                        content if isinstance(content, str) else "".join(b["text"] for b in content)
                    )
    return texts


@pytest.fixture
def files(workspace: Path) -> list[str]:
    names = ["a.txt", "b.txt", "c.txt"]
    for name in names:
        (workspace / name).write_text(f"contents of {name} " * 40)
    return names


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_clock_restored_on_resume_tidies_the_first_request(
    vendor: str,
    fake: FakeServer,
    make_agent: AgentFactory,
    files: list[str],
    workspace: Path,
    tmp_path: Path,
) -> None:
    clock = Clock()
    fake.script(*_read_replies(files), Reply(text="next day"))
    agent = make_agent(vendor, clock=clock, idle=POLICY)
    await run(agent, "read the files")
    agent.session.close()

    clock.advance_minutes(14 * 60)  # next morning, new process
    store = SessionStore(tmp_path / "sessions", workspace)
    resumed = Session.resume(store, store.latest())
    assert resumed.last_response_at is not None
    events = await run(make_agent(vendor, clock=clock, idle=POLICY, session=resumed), "hi again")

    edits = [e for e in events if isinstance(e, ContextEdited)]
    assert len(edits) == 1 and isinstance(edits[0].edit, ClearToolResults)
    assert edits[0].description.startswith("idle cleanup: gap 840.0 min >= 60 min, cleared 2 tool")
    first, second, last = _result_texts(fake.requests[-1])
    assert is_cleared_text(first) and is_cleared_text(second)
    assert last == _result_texts(fake.requests[-2])[-1]
    # the transcript still holds every original
    originals = [r.content for m in resumed.transcript for r in m.tool_results]
    assert len(originals) == 3 and not any(is_cleared_text(text) for text in originals)


async def test_once_per_idle_episode_then_append_only(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    fake.script(*_read_replies(files), Reply(text="back"), Reply(text="again"))
    agent = make_agent("anthropic", clock=clock, idle=POLICY)
    await run(agent, "read")
    clock.advance_minutes(61)
    first = await run(agent, "back from lunch")
    clock.advance_minutes(1)
    second = await run(agent, "one more thing")

    assert sum(isinstance(e, ContextEdited) for e in first) == 1
    assert not any(isinstance(e, ContextEdited) for e in second)
    before, after = fake.requests[-2]["messages"], fake.requests[-1]["messages"]
    strip = [_no_cache(m) for m in before]
    assert [_no_cache(m) for m in after[: len(before) - 1]] == strip[:-1]


def _no_cache(message: dict[str, Any]) -> str:
    """The message as JSON without cache markers (their placement moves by design)."""
    content = message.get("content")
    if isinstance(content, list):
        content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
    return json.dumps({**message, "content": content}, sort_keys=True)


async def test_never_inside_a_tool_loop(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()

    def slow_tool_loop(body: dict[str, Any]) -> Reply:
        clock.advance_minutes(90)  # model and tool latency is not user idle time
        return Reply(tool_calls=[ToolUse("read_file", {"path": "b.txt"})])

    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"})]),
        Reply(respond=slow_tool_loop),
        Reply(respond=slow_tool_loop),
        Reply(text="done"),
    )
    agent = make_agent("anthropic", clock=clock, idle=POLICY)
    events = await run(agent, "read")
    assert len(fake.requests) == 4  # the loop ran, 90 minutes passing twice inside it
    assert not any(isinstance(e, ContextEdited) for e in events)
    assert CLEARED_PREFIX not in json.dumps(fake.requests)
    # the control: the same 90 minutes between two user messages do clear
    fake.script(Reply(text="back"))
    clock.advance_minutes(90)
    later = await run(agent, "back from lunch")
    assert [type(e.edit) for e in later if isinstance(e, ContextEdited)] == [ClearToolResults]
    assert CLEARED_PREFIX in json.dumps(fake.requests[-1])


@pytest.mark.parametrize("vendor", ["anthropic", "deepseek", "kimi"])
async def test_thinking_cleanup_obeys_each_vendor_and_the_strict_fake_accepts_it(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    fake.script(*_read_replies(files[:2], thinking=True), Reply(thinking="fresh", text="ok"))
    agent = make_agent(
        vendor,
        clock=clock,
        idle=IdlePolicy(thinking_threshold_minutes=5, tool_results_threshold_minutes=-1),
    )
    await run(agent, "read")
    clock.advance_minutes(6)
    events = await run(agent, "and now?")

    assert fake.journal[-1].status == 200  # no HTTP 400 from the strict vendor rules
    edit = next(e.edit for e in events if isinstance(e, ContextEdited))
    assert isinstance(edit, ClearThinking)
    body = fake.requests[-1]
    assistants = [m for m in body["messages"] if m["role"] == "assistant"]
    if vendor == "anthropic":
        kinds = [b["type"] for m in assistants for b in m["content"]]
        assert "thinking" not in kinds
    else:
        with_calls = [m for m in assistants if m.get("tool_calls")]
        without = [m for m in assistants if not m.get("tool_calls")]
        assert len(with_calls) == 2 and len(without) == 1
        assert all(m["reasoning_content"] for m in with_calls)  # the API demands it back
        assert all(not m.get("reasoning_content") for m in without)


@pytest.mark.parametrize(("vendor", "cleared"), [("openai", []), ("deepseek", [ClearThinking])])
async def test_openai_vendor_has_no_thinking_to_clear(
    vendor: str, cleared: list[type], fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    """OpenAI sends no reasoning back, so there is nothing to clear; the same run on a vendor
    whose reasoning comes back (deepseek) clears it: the control."""
    clock = Clock()
    fake.script(*_read_replies(files[:1], thinking=True), Reply(text="ok"))
    agent = make_agent(vendor, clock=clock, idle=IdlePolicy(tool_results_threshold_minutes=-1))
    await run(agent, "read")
    clock.advance_minutes(30)
    events = await run(agent, "again")
    assert [type(e.edit) for e in events if isinstance(e, ContextEdited)] == cleared


async def test_token_count_drops_at_once_and_restore_brings_content_back(
    fake: FakeServer, make_agent: AgentFactory, files: list[str]
) -> None:
    clock = Clock()
    fake.script(
        *_read_replies(files), Reply(text="tidied"), Reply(text="restored"), Reply(text="later")
    )
    agent = make_agent("anthropic", clock=clock, idle=POLICY)
    runtime = runtime_for(agent, fake)
    first = await run(agent, "read")
    before = [e.context_tokens for e in first if isinstance(e, RequestFinished)][-1]
    clock.advance_minutes(75)
    events = await run(agent, "back")
    edit = next(e.edit for e in events if isinstance(e, ContextEdited))
    assert isinstance(edit, ClearToolResults)
    after = [e.context_tokens for e in events if isinstance(e, RequestFinished)][-1]
    assert after < before

    result = run_command(runtime, "/context")
    assert any("cleared 2 tool results" in line for line in result.lines)
    result = run_command(runtime, "/context restore")
    assert "restored" in result.lines[0]
    clock.advance_minutes(1)  # the restore starts the gap afresh: no re-clear right after
    await run(agent, "use the originals")
    assert CLEARED_PREFIX not in json.dumps(fake.requests[-1])
    assert len(_result_texts(fake.requests[-1])) == 3
    clock.advance_minutes(75)  # a later, longer gap still does what its threshold says
    events = await run(agent, "back again")
    assert any(isinstance(e, ContextEdited) for e in events)
    assert CLEARED_PREFIX in json.dumps(fake.requests[-1])
