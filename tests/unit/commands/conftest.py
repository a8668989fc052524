"""A real runtime (official SDK against the strict fake, saved sessions) for command tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.runtime import Runtime
from tests.fakes import FakeServer
from tests.support import fake_runtime


@pytest.fixture
def runtime(fake: FakeServer, workspace: Path, tmp_path: Path) -> Runtime:
    return fake_runtime(fake, workspace, tmp_path)
