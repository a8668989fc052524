"""Fixtures for the reliability tests: the real ``lull`` binary run with arbitrary bytes in
its arguments and stdin (real agents on the strict fake are the suite's ``make_agent``)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

from lull.engine.sessions.store import SessionStore
from lull.settings.paths import sessions_dir
from tests.e2e.conftest import Lull, lull, lull_command

__all__ = ["Lull", "lull", "run_bytes", "store_of"]


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
