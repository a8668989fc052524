"""Suite-wide isolation: no test sees the developer's keys, settings or sessions; what a test
opens is closed when it ends; the shared fake server, workspace, agents and runtime."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from lull.engine.loop.agent import Agent
from lull.runtime import Runtime
from tests.fakes import FakeServer
from tests.support import AgentFactory, build_agent, closing_what_tests_open, fake_runtime

ISOLATED_PREFIXES = ("ANTHROPIC_", "OPENAI_", "LULL_", "ENABLE_TOOL_SEARCH")
"""Variables lull reads that a developer's shell may hold (ENABLE_TOOL_SEARCH: Claude Code's,
which lull reads as tools.toolSearch)."""

# No property test is about speed: on a busy machine an example may take seconds, and neither
# that nor slow data generation is a failure.
settings.register_profile(
    "lull", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("lull")


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point XDG dirs at a fresh temp home and drop provider/lull variables."""
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


@pytest.fixture(autouse=True)
def closes_what_it_opens() -> Iterator[None]:
    """Close the sessions, runtimes and apps the shared builders (tests.support, the TUI
    harness) opened during the test."""
    with closing_what_tests_open():
        yield


OPEN_SESSION_FILES_ALLOWED = 3
"""How many session files may still be open when the run ends (a writer dropped unclosed is
released by its finalizer only when the garbage collector gets to it)."""


@pytest.fixture(scope="session", autouse=True)
def session_files_closed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fail the run if this process still holds more than a few of the tests' session files
    open at its end: a test that opens a session must close it (each one holds a descriptor
    and a lock; a few hundred exhaust a small ``ulimit -n``)."""
    yield
    still_open = open_files(tmp_path_factory.getbasetemp(), ".jsonl")
    if len(still_open) > OPEN_SESSION_FILES_ALLOWED:
        listed = "\n".join(still_open[:20])
        pytest.fail(
            f"{len(still_open)} session files are still open at the end of the run (the temp "
            f"directory names the test that opened each):\n{listed}",
            pytrace=False,
        )


def open_files(under: Path, suffix: str) -> list[str]:
    """The files under ``under`` ending in ``suffix`` this process holds open (Linux; none
    where /proc is missing)."""
    descriptors = Path("/proc/self/fd")
    if not descriptors.is_dir():
        return []
    prefix = str(under.resolve()) + os.sep
    found = []
    for name in os.listdir(descriptors):
        try:
            target = os.readlink(descriptors / name)
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor)
        if target.startswith(prefix) and target.endswith(suffix):
            found.append(target)
    return sorted(found)


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


@pytest.fixture
def make_agent(fake: FakeServer, workspace: Path, tmp_path: Path) -> AgentFactory:
    """Real agents (official SDK, real tools, saved sessions under ``tmp_path``) on the fake:
    ``make_agent(vendor="anthropic", **options)``, options as ``tests.support.agent_on``."""

    def build(vendor: str = "anthropic", **options: Any) -> Agent:
        return build_agent(fake, workspace, tmp_path, vendor, **options)

    return build


@pytest.fixture
def runtime(fake: FakeServer, workspace: Path, tmp_path: Path) -> Runtime:
    """A real runtime (official SDK against the fake, saved sessions) for front-end and
    command tests."""
    return fake_runtime(fake, workspace, tmp_path)
