"""Fixtures: a fake server, a workspace and a factory of real agents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lull.engine.loop.agent import Agent
from tests.fakes import FakeServer
from tests.support import Clock, build_agent, run

__all__ = ["AgentFactory", "Clock", "run"]

AgentFactory = Callable[..., Agent]


@pytest.fixture
def make_agent(fake: FakeServer, workspace: Path, tmp_path: Path) -> AgentFactory:
    def build(vendor: str = "anthropic", **kwargs: Any) -> Agent:
        return build_agent(fake, workspace, tmp_path, vendor, **kwargs)

    return build
