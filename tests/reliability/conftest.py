"""Fixtures for the reliability tests: the real ``lull`` binary (and run with arbitrary bytes
in its arguments and stdin), lull's Anthropic provider pointed at the fake, and retry waits
recorded instead of slept (real agents on the strict fake are the suite's ``make_agent``)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

import pytest

from lull.engine.sessions.store import SessionStore
from lull.settings.paths import sessions_dir
from tests.e2e.conftest import Lull, lull, lull_command, tmux
from tests.fakes import FakeServer
from tests.reliability.helpers import Waits

__all__ = ["Lull", "lull", "run_bytes", "store_of", "tmux"]


@pytest.fixture
def waits() -> Waits:
    """Retry waits recorded, never slept."""
    return Waits()


@pytest.fixture
def anthropic_env(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """lull's Anthropic provider pointed at the fake."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    return fake


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
