"""Requests strict local servers accept: after a tool call without text the assistant's
``content`` is empty, never null, and ``max_tokens`` (and a thinking budget) is clamped to
what fits the window."""

from __future__ import annotations

from pathlib import Path

from lull.model.events import (
    Event,
    RequestFinished,
    TurnFinished,
)
from lull.model.provider import (
    ThinkingConfig,
)
from lull.providers.scripted import ScriptedProvider
from tests.fakes import FakeServer, Reply, ServerQuirks, ToolUse
from tests.reliability.helpers import (
    Waits,
    local_on,
    server_agent,
)
from tests.support import run

# --- an empty "content" after a tool call ---------------------------------------------------------


async def test_a_tool_call_without_text_is_sent_with_empty_content(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks.reject_null_content = True  # llama-cpp-python answers null with a 500
    fake.script(Reply(tool_calls=[ToolUse("glob", {"pattern": "*"})]), Reply(text="nothing here"))
    agent = server_agent(local_on(fake.url + "/v1", waits), workspace, tmp_path)
    events = await run(agent, "which files?")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "nothing here"
    fake.script(Reply(text="still fine"))
    events = await run(agent, "and now?")  # every later request of the session works too
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "still fine"
    assert {e.status for e in fake.journal} == {200}
    [call] = [m for m in fake.requests[-1]["messages"] if m.get("tool_calls")]
    assert call["content"] == ""


# --- max_tokens clamped to what fits --------------------------------------------------------------


async def test_a_2048_token_window_never_gets_max_tokens_8192(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    agent = server_agent(provider, workspace, tmp_path, context_window=2048)
    assert agent.config.max_output_tokens == 8192
    events: list[Event] = []
    for turn in range(3):
        events += await run(agent, f"question {turn}")
    sent = [r.max_output_tokens for r in provider.requests]
    assert all(256 <= limit < 2048 for limit in sent), sent
    prompts = [e.usage.prompt_tokens for e in events if isinstance(e, RequestFinished)]
    assert all(p + limit <= 2048 for p, limit in zip(prompts, sent, strict=True))


async def test_a_vllm_server_accepts_the_clamped_limit(
    fake: FakeServer, waits: Waits, workspace: Path, tmp_path: Path
) -> None:
    fake.quirks = ServerQuirks.vllm()  # 400 when prompt + max_tokens does not fit
    fake.max_context_tokens = 4096
    agent = server_agent(
        local_on(fake.url + "/v1", waits), workspace, tmp_path, context_window=4096
    )
    for turn in range(3):  # the first request is sized before any usage was reported
        fake.script(Reply(text=f"fits {turn}"))
        events = await run(agent, f"question {turn}")
        assert isinstance(events[-1], TurnFinished) and events[-1].text == f"fits {turn}"
    assert all(256 <= body["max_tokens"] < 4096 for body in fake.requests)


async def test_an_explicit_thinking_budget_shrinks_with_the_output_limit(
    workspace: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    thinking = ThinkingConfig(True, 6000)
    agent = server_agent(provider, workspace, tmp_path, context_window=4096, thinking=thinking)
    await run(agent, "think")
    request = provider.requests[-1]
    assert request.max_output_tokens < 4096
    assert request.thinking.budget_tokens is not None
    assert request.thinking.budget_tokens < request.max_output_tokens
