"""Shared fixtures for the tool tests: a workspace in tmp_path and a registry runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lull.tools.base import ToolContext, ToolOutput
from lull.tools.registry import default_registry
from tests.unit.tools.helpers import Call


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def ctx(workspace: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=workspace, output_dir=tmp_path / "out", call_id="call_1")


@pytest.fixture
def call(ctx: ToolContext) -> Call:
    """Run a tool through the default registry, as the engine would."""
    registry = default_registry()

    async def run(name: str, context: ToolContext | None = None, **args: Any) -> ToolOutput:
        return await registry.execute(name, args, context or ctx)

    return run
