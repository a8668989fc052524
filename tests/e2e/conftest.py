"""Run the real ``lull`` binary as a subprocess against the loopback fake, and in tmux."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fakes import FakeServer

if TYPE_CHECKING:
    from tests.e2e.tmux import Tmux


def lull_command() -> list[str]:
    """The installed ``lull`` next to this interpreter, else ``python -m lull``."""
    candidate = Path(sys.executable).with_name("lull")
    if candidate.exists():
        return [str(candidate)]
    found = shutil.which("lull")
    return [found] if found else [sys.executable, "-m", "lull"]


@dataclass
class Lull:
    """Runs lull in one workspace with an isolated home and the fake as its provider."""

    workspace: Path
    env: dict[str, str]

    def run(
        self, *args: str, env: Mapping[str, str] | None = None, stdin: str = "", timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run ``lull ARGS`` to completion."""
        return subprocess.run(
            [*lull_command(), *args],
            cwd=self.workspace,
            env={**self.env, **(env or {})},
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def run_bytes(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
        """Run ``lull ARGS`` to completion; its output as the bytes it wrote (no newline
        translation: a carriage return stays one)."""
        return subprocess.run(
            [*lull_command(), *args],
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        """Start ``lull ARGS`` without waiting."""
        return subprocess.Popen(
            [*lull_command(), *args],
            cwd=self.workspace,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


@pytest.fixture
def lull(fake: FakeServer, tmp_path: Path, isolated_env: Path) -> Lull:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    env = {k: v for k, v in os.environ.items()}
    env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key")
    return Lull(workspace, env)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """A private tmux server for the test (killed with everything in it at the end)."""
    from tests.e2e.tmux import Tmux  # tmux.py imports this module

    terminal = Tmux(tmp_path)
    try:
        yield terminal
    finally:
        terminal.close()
