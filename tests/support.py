"""Building real agents against the fake server, shared by tests and benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lull.context.compress_prompt import SECTIONS
from lull.context.idle import IdlePolicy
from lull.engine.calls.runner import ToolRunner
from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import Event
from lull.providers.config import ProviderConfig, create_provider
from lull.runtime import Runtime
from lull.settings.loader import LoadedSettings
from lull.tools.base import ToolContext
from lull.tools.registry import default_registry
from tests.fakes import FakeServer

VENDOR_PROVIDER = {
    "anthropic": "anthropic",
    "openai": "openai",
    "deepseek": "openai",
    "kimi": "openai",
    "vllm": "openai",
}
FAKE_DIALECT = {"vllm": "openai"}  # vLLM speaks plain OpenAI (its quirks are fake.quirks)


def summary_of(goal: str, next_step: str = "Carry on.") -> str:
    """A summary with every section the compressor checks for: ``goal`` under the first
    heading, ``next_step`` under the last, "none" under the others."""
    bodies = {SECTIONS[0]: goal, SECTIONS[-1]: next_step}
    return "\n".join(f"## {name}\n{bodies.get(name, 'none')}" for name in SECTIONS)


class Clock:
    """A settable clock for the idle logic."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance_minutes(self, minutes: float) -> None:
        self.now += minutes * 60


class FakeTime(Clock):
    """The engine's clock and the fake server's cache clock, moving together."""

    def __init__(self, fake: FakeServer) -> None:
        super().__init__(fake.clock.now())
        self.fake = fake

    def advance_minutes(self, minutes: float) -> None:
        """Move both clocks."""
        super().advance_minutes(minutes)
        self.fake.clock.advance(minutes * 60)


def build_agent(
    fake: FakeServer,
    workspace: Path,
    data_dir: Path,
    vendor: str = "anthropic",
    *,
    mode: str = "yolo",
    clock: Clock | None = None,
    idle: IdlePolicy | None = None,
    session: Session | None = None,
    model: str | None = None,
    **config: Any,
) -> Agent:
    """A real agent (official SDK provider, real tools, saved session) talking to ``fake``."""
    provider_name = VENDOR_PROVIDER[vendor]
    fake.dialect = FAKE_DIALECT.get(vendor, vendor) if provider_name == "openai" else "openai"
    default_model = "claude-test" if provider_name == "anthropic" else f"{vendor}-test"
    provider = create_provider(
        ProviderConfig(
            provider=provider_name,  # type: ignore[arg-type]
            model=model or default_model,
            api_key="test",
            base_url=fake.url if provider_name == "anthropic" else fake.url + "/v1",
            vendor=vendor,  # type: ignore[arg-type]
        )
    )
    store = SessionStore(data_dir / "sessions", workspace)
    the_clock = clock or Clock()
    session = session or Session.create(
        store, provider=provider_name, model=provider.model, clock=the_clock
    )
    context = ToolContext(workspace=workspace.resolve(), output_dir=data_dir / "out")
    runner = ToolRunner(default_registry(), context, mode)  # type: ignore[arg-type]
    config.setdefault("system", "You are a test.")
    agent_config = AgentConfig(idle=idle or IdlePolicy(), vendor=vendor, **config)
    return Agent(session, provider, runner, agent_config, clock=the_clock)


async def run(agent: Agent, prompt: str) -> list[Event]:
    """All events of one turn."""
    return [event async for event in agent.run_turn(prompt)]


def runtime_for(agent: Agent, fake: FakeServer) -> Runtime:
    """A Runtime (default settings) around ``agent``, which talks to ``fake``'s Anthropic API;
    a model switch builds real SDK providers for the same fake."""
    config = ProviderConfig(
        provider="anthropic",
        model=agent.provider.model,
        api_key="test",
        base_url=fake.url,
        vendor="anthropic",
    )
    assert agent.session.path is not None
    store = SessionStore(agent.session.path.parent.parent, agent.tools.context.workspace)
    return Runtime(agent, LoadedSettings(), config, store)


def fake_runtime(
    fake: FakeServer, workspace: Path, data_dir: Path, **agent_options: Any
) -> Runtime:
    """A Runtime whose agent talks to ``fake`` (Anthropic API) and saves under ``data_dir``."""
    return runtime_for(build_agent(fake, workspace, data_dir, "anthropic", **agent_options), fake)


CLEARED_PREFIX = "[Old tool result content cleared"
"""How every cleared-result sentinel starts (the recall id follows)."""
