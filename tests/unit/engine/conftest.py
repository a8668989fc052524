"""Engine tests on the in-process scripted provider: real tools and sessions, no HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lull.engine.loop.agent import Agent
from lull.engine.sessions.store import SessionStore
from lull.providers.scripted import ScriptedProvider
from tests.support import AgentFactory, agent_on


@pytest.fixture
def provider() -> ScriptedProvider:
    """The scripted model the agents of a test talk to."""
    return ScriptedProvider()


@pytest.fixture
def store(tmp_path: Path, workspace: Path) -> SessionStore:
    """Where the test's sessions are saved (where ``make_agent`` saves them)."""
    return SessionStore(tmp_path / "sessions", workspace)


@pytest.fixture
def make_agent(provider: ScriptedProvider, workspace: Path, tmp_path: Path) -> AgentFactory:
    """A real agent (real tools, a saved session) on the scripted provider: keywords as
    ``tests.support.agent_on`` (``mode`` is the approval mode, yolo unless given; the rest go
    to AgentConfig). This overrides the suite's ``make_agent`` on the fake server."""

    def build(**options: Any) -> Agent:
        return agent_on(provider, workspace, tmp_path, **options)

    return build
