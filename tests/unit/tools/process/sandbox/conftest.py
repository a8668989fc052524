"""Fixtures for the sandbox tests: a temp HOME with a fake SSH key, a workspace, a directory
outside it, a loopback HTTP server, and a shell tool context whose sandbox is real
bubblewrap (the tests that need it skip, saying why, where it is missing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from lull.tools.base import ToolContext
from lull.tools.process.sandbox.policy import SandboxPolicy, hidden_paths
from lull.tools.process.sandbox.probe import Availability, probe
from lull.tools.process.sandbox.sandbox import Sandbox
from tests.loopback import hello_server

FAKE_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- fake key for the sandbox tests"


@pytest.fixture(scope="session")
def availability() -> Availability:
    """What this machine has for the sandbox."""
    return probe()


@pytest.fixture
def needs_bwrap(availability: Availability) -> None:
    """Skip, saying what is missing, where the Linux sandbox cannot start."""
    if availability.platform != "linux" or not availability.ready:
        pytest.skip(f"no Linux sandbox here: {availability.missing or availability.platform}")


@dataclass
class Place:
    """The test's file system: a home with a key, a workspace and a place outside it."""

    home: Path
    workspace: Path
    outside: Path


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(FAKE_KEY)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "file.txt").write_text("still here")
    monkeypatch.setenv("HOME", str(home))
    return Place(home.resolve(), workspace.resolve(), outside.resolve())


MakeSandbox = Callable[..., Sandbox]


@pytest.fixture
def make_sandbox(place: Place, availability: Availability) -> MakeSandbox:
    """A sandbox of the workspace, with the domains, excluded commands and retry rule given."""

    def make(
        allowed_domains: tuple[str, ...] = (),
        excluded_commands: tuple[str, ...] = (),
        allow_unconfined: bool = True,
    ) -> Sandbox:
        policy = SandboxPolicy(
            workspace=place.workspace,
            writable=(place.workspace,),
            hidden=hidden_paths(place.home, (), (), place.workspace),
            allowed_domains=allowed_domains,
            excluded_commands=excluded_commands,
            allow_unconfined=allow_unconfined,
        )
        return Sandbox(policy, availability)

    return make


@pytest.fixture
def sandboxed(place: Place, make_sandbox: MakeSandbox, tmp_path: Path) -> ToolContext:
    """A tool context whose commands run in the default sandbox."""
    return ToolContext(
        workspace=place.workspace, output_dir=tmp_path / "out", sandbox=make_sandbox()
    )


@pytest.fixture
def loopback_server() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 that answers every GET; its port."""
    with hello_server() as port:
        yield port
