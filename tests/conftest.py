"""Suite-wide isolation: no test sees the developer's keys, settings or sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeServer

ISOLATED_PREFIXES = ("ANTHROPIC_", "OPENAI_", "LULL_")


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point XDG dirs at a fresh temp home and drop provider/lull variables."""
    import os

    home = tmp_path_factory.mktemp("home")
    for name in list(os.environ):
        if name.startswith(ISOLATED_PREFIXES):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    yield home


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    """A running loopback fake of the Anthropic and OpenAI APIs."""
    with FakeServer() as server:
        yield server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace directory."""
    path = tmp_path / "ws"
    path.mkdir()
    return path
