"""Building real agents against the fake server, shared by tests and benchmarks.

What the builders here open (a session file, held locked until closed) is closed when the
test ends: ``tests/conftest.py`` runs every test inside :func:`closing_what_tests_open`.
Outside a test (the benchmarks) the caller closes what it builds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
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
from lull.model.provider import Provider
from lull.providers.config import ProviderConfig, create_provider
from lull.runtime import RunOptions, Runtime, build_runtime
from lull.settings.loader import LoadedSettings
from lull.tools.base import ToolContext
from lull.tools.registry import ToolRegistry, default_registry
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


AgentFactory = Callable[..., Agent]
"""The ``make_agent`` fixtures: keyword arguments as :func:`agent_on` (and a vendor first for
the fake server's)."""

_closing: contextlib.ExitStack | None = None


@contextlib.contextmanager
def closing_what_tests_open() -> Iterator[None]:
    """Run the block (one test), then close every session, runtime and app that
    :func:`close_when_the_test_ends` was given in it, newest first."""
    global _closing
    with contextlib.ExitStack() as stack:
        _closing = stack
        try:
            yield
        finally:
            _closing = None


def close_when_the_test_ends(close: Callable[[], object]) -> None:
    """Call ``close`` when the running test ends (nothing outside a test)."""
    if _closing is not None:
        _closing.callback(close)


def agent_on(
    provider: Provider,
    workspace: Path,
    data_dir: Path,
    *,
    mode: str = "yolo",
    clock: Callable[[], float] | None = None,
    idle: IdlePolicy | None = None,
    session: Session | None = None,
    tools: ToolRegistry | None = None,
    **config: Any,
) -> Agent:
    """A real agent on ``provider``: real tools (``tools``, else the default registry) on
    ``workspace`` in approval ``mode``, its session saved under ``data_dir / "sessions"``
    (unless ``session`` is given), on ``clock`` (else a fixed :class:`Clock`); other keywords
    go to AgentConfig. Its session is closed when the test ends."""
    the_clock = clock or Clock()
    if session is None:
        store = SessionStore(data_dir / "sessions", workspace)
        session = Session.create(
            store, provider=provider.name, model=provider.model, clock=the_clock
        )
    context = ToolContext(workspace=workspace.resolve(), output_dir=data_dir / "out")
    runner = ToolRunner(tools or default_registry(), context, mode)  # type: ignore[arg-type]
    config.setdefault("system", "You are a test.")
    agent_config = AgentConfig(idle=idle or IdlePolicy(), **config)
    agent = Agent(session, provider, runner, agent_config, clock=the_clock)
    close_when_the_test_ends(lambda: agent.session.close())
    return agent


def build_agent(
    fake: FakeServer,
    workspace: Path,
    data_dir: Path,
    vendor: str = "anthropic",
    *,
    model: str | None = None,
    **options: Any,
) -> Agent:
    """A real agent (official SDK provider, real tools, saved session) talking to ``fake`` as
    ``vendor``; ``options`` as :func:`agent_on`."""
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
    return agent_on(provider, workspace, data_dir, vendor=vendor, **options)


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
    runtime = Runtime(agent, LoadedSettings(), config, store)
    close_when_the_test_ends(runtime.close)
    return runtime


def fake_runtime(
    fake: FakeServer, workspace: Path, data_dir: Path, **agent_options: Any
) -> Runtime:
    """A Runtime whose agent talks to ``fake`` (Anthropic API) and saves under ``data_dir``."""
    return runtime_for(build_agent(fake, workspace, data_dir, "anthropic", **agent_options), fake)


def demo_runtime(
    workspace: Path,
    provider: Provider | None = None,
    *,
    env: Mapping[str, str] | None = None,
    **options: Any,
) -> Runtime:
    """The runtime ``lull --demo`` builds in ``workspace`` (settings, tools, a session file),
    on ``provider`` instead of the demo model if given; ``env`` replaces the environment,
    ``options`` go to RunOptions. Closed when the test ends."""
    run_options = RunOptions(workspace=workspace, demo=True, **options)
    if provider is None:
        runtime = build_runtime(run_options, env)
    else:
        runtime = build_runtime(run_options, env, provider_factory=lambda config: provider)
    close_when_the_test_ends(runtime.close)
    return runtime


CLEARED_PREFIX = "[Old tool result content cleared"
"""How every cleared-result sentinel starts (the recall id follows)."""
