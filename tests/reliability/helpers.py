"""Helpers shared by the reliability tests: scripted tool calls and runtimes, providers on
the fake with recorded retry waits, ``-p`` in process, and reading turns and request bodies."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.loop.agent import Agent
from lull.engine.sessions.load import load_session
from lull.model.approvals import ApprovalMode
from lull.model.events import Event, Notice, ToolFinished, TurnFailed, TurnFinished
from lull.model.messages import Message, ToolResult, user_text
from lull.model.provider import ModelRequest, Provider, StreamEvent
from lull.providers.anthropic import AnthropicProvider
from lull.providers.config import ProviderConfig
from lull.providers.openai import OpenAIProvider
from lull.providers.retry import RetryTiming
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.runtime import RunOptions, Runtime
from lull.settings.paths import user_settings_path
from lull.ui.printer import run_print
from tests import support
from tests.fakes import FakeServer


def call(name: str, **arguments: object) -> ScriptedReply:
    """A scripted model reply that makes one tool call."""
    return ScriptedReply(tool_calls=(ScriptedCall(name, arguments),))


def write_user_settings(settings: dict[str, Any]) -> None:
    """The user's own settings file (trusted)."""
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def scripted_runtime(
    workspace: Path, provider: ScriptedProvider, mode: ApprovalMode | None = None
) -> Runtime:
    """The real runtime (settings, tool context, session file) on a scripted model."""
    return support.demo_runtime(workspace, provider, approval_mode=mode)


def results(events: list[Any]) -> list[ToolResult]:
    """The tool results of a turn's events."""
    return [e.result for e in events if isinstance(e, ToolFinished)]


NOW = 1_700_000_000.0


class Waits:
    """Retry timing that records each wait instead of sleeping (a fixed wall clock)."""

    def __init__(self) -> None:
        self.slept: list[float] = []
        self.timing = RetryTiming(sleep=self.sleep, now=lambda: NOW, jitter=lambda: 0.0)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


def anthropic_on(fake: FakeServer, waits: Waits, **config: Any) -> AnthropicProvider:
    """The Anthropic provider pointed at the fake."""
    settings = ProviderConfig("anthropic", "claude-test", "k", fake.url, "anthropic", **config)
    return AnthropicProvider(settings, timing=waits.timing)


def local_on(url: str, waits: Waits, **config: Any) -> OpenAIProvider:
    """The OpenAI provider for a local OpenAI-compatible server at ``url`` (no vendor)."""
    settings = ProviderConfig("openai", "local-model", "k", url, "generic", **config)
    return OpenAIProvider(settings, timing=waits.timing)


def server_agent(provider: Provider, workspace: Path, data: Path, **config: Any) -> Agent:
    """A real agent (real tools, a saved session) on ``provider``, on the real clock."""
    config.setdefault("vendor", "anthropic" if provider.name == "anthropic" else "generic")
    return support.agent_on(provider, workspace, data, clock=time.time, **config)


async def answer(provider: Provider, text: str = "hi") -> list[StreamEvent]:
    """Every event of one request with a single user message."""
    request = ModelRequest(system="You are a test.", messages=[user_text(text)])
    return [event async for event in provider.stream(request)]


def notices(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def print_mode(
    capsys: pytest.CaptureFixture[str],
    workspace: Path,
    output_format: str = "json",
    prompt: str = "hi",
    **options: Any,
) -> tuple[int, str, str]:
    """``lull -p PROMPT --output-format FORMAT`` in process: (exit code, stdout, stderr)."""
    code = run_print(RunOptions(workspace=workspace, **options), prompt, output_format)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


def turn_finished(events: list[Event]) -> TurnFinished:
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert not failed, failed
    [done] = [e for e in events if isinstance(e, TurnFinished)]
    return done


def tool_result_texts(body: dict[str, Any]) -> list[str]:
    """The text of every tool result in a request body, either protocol."""
    found: list[str] = []
    for message in body["messages"]:
        if message["role"] == "tool":
            found.append(message["content"])
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = block["content"]
                    if isinstance(text, list):
                        text = "".join(b.get("text", "") for b in text)
                    found.append(text)
    return found


def messages_of(path: Path) -> list[Message]:
    return load_session(path).messages


def long_history(turns: int, words: int) -> list[ScriptedReply]:
    """Scripted answers of ``words`` words each, to grow a conversation (the same word over
    and over: agents fed these run without the stream-repetition guard, :data:`FILLER_OK`)."""
    return [ScriptedReply(text=" ".join(["answer"] * words)) for _ in range(turns)]


FILLER_OK = GuardrailPolicy(stream_repetition=False)
"""Guardrails that let a repeating filler answer through (it grows a conversation here)."""
