"""Engine tests on the in-process scripted provider: real tools and sessions, no HTTP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lull.context.idle import IdlePolicy
from lull.engine.calls.runner import ToolRunner
from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.providers.scripted import ScriptedProvider
from lull.tools.base import ToolContext
from lull.tools.registry import default_registry
from tests.support import Clock

AgentFactory = Callable[..., Agent]


@pytest.fixture
def provider() -> ScriptedProvider:
    """The scripted model the agents of a test talk to."""
    return ScriptedProvider()


@pytest.fixture
def store(tmp_path: Path, workspace: Path) -> SessionStore:
    """Where the test's sessions are saved."""
    return SessionStore(tmp_path / "sessions", workspace)


@pytest.fixture
def make_agent(
    provider: ScriptedProvider, store: SessionStore, workspace: Path, tmp_path: Path
) -> AgentFactory:
    """A real agent (real tools, a saved session) on the scripted provider.

    ``mode`` is the approval mode (yolo unless given); other keywords go to AgentConfig.
    """

    def build(
        *,
        mode: str = "yolo",
        clock: Clock | None = None,
        idle: IdlePolicy | None = None,
        session: Session | None = None,
        **config: Any,
    ) -> Agent:
        the_clock = clock or Clock()
        session = session or Session.create(
            store, provider=provider.name, model=provider.model, clock=the_clock
        )
        context = ToolContext(workspace=workspace.resolve(), output_dir=tmp_path / "out")
        runner = ToolRunner(default_registry(), context, mode)  # type: ignore[arg-type]
        config.setdefault("system", "You are a test.")
        agent_config = AgentConfig(idle=idle or IdlePolicy(), **config)
        return Agent(session, provider, runner, agent_config, clock=the_clock)

    return build
