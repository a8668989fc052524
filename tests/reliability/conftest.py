"""Fixtures for the reliability tests: real agents against the strict fake, and the real
``lull`` binary run with arbitrary bytes in its arguments and stdin."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from lull.engine.loop.agent import Agent
from lull.engine.sessions.store import SessionStore
from lull.settings.paths import sessions_dir
from tests.e2e.conftest import Lull, lull, lull_command
from tests.fakes import FakeServer
from tests.support import build_agent

__all__ = ["AgentFactory", "Lull", "lull", "run_bytes", "store_of"]

AgentFactory = Callable[..., Agent]


@pytest.fixture
def make_agent(fake: FakeServer, workspace: Path, tmp_path: Path) -> AgentFactory:
    """Real agents (official SDK, real tools, saved sessions under ``tmp_path``) on the fake."""

    def build(vendor: str = "anthropic", **kwargs: Any) -> Agent:
        return build_agent(fake, workspace, tmp_path, vendor, **kwargs)

    return build


def run_bytes(
    lull: Lull,
    args: Sequence[str | bytes],
    *,
    stdin: bytes = b"",
    prefix: Sequence[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``lull ARGS`` (any bytes) to completion; ``prefix`` goes before the command."""
    return subprocess.run(
        [*prefix, *lull_command(), *args],
        cwd=lull.workspace,
        env={**lull.env, **(env or {})},
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def store_of(lull: Lull) -> SessionStore:
    """The session store the ``lull`` binary uses for its workspace."""
    return SessionStore(sessions_dir(), lull.workspace)
