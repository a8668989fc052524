"""A real runtime (agent, settings, provider config, store) against the fake server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.engine.agent import Agent
from app.engine.store import SessionStore
from app.providers.config import ProviderConfig
from app.runtime import Runtime
from settings.loader import LoadedSettings
from tests.fakes import FakeServer
from tests.support import build_agent


def fake_runtime(
    fake: FakeServer, workspace: Path, data_dir: Path, **agent_options: Any
) -> Runtime:
    """A Runtime whose agent talks to ``fake`` (Anthropic API) and saves under ``data_dir``."""
    agent: Agent = build_agent(fake, workspace, data_dir, "anthropic", **agent_options)
    config = ProviderConfig(
        provider="anthropic",
        model=agent.provider.model,
        api_key="test",
        base_url=fake.url,
        vendor="anthropic",
    )
    store = SessionStore(data_dir / "sessions", workspace)
    return Runtime(agent, LoadedSettings(), config, store, resumed=False)
