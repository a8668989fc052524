"""Pilot tests: the TUI with a real runtime whose provider is the loopback fake."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import FakeServer


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


@pytest.fixture
def provider_env(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """lull's Anthropic provider pointed at the fake (as ANTHROPIC_BASE_URL would)."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    return fake
