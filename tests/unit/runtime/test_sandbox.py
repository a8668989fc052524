"""The sandbox settings turned into the sandbox commands run in: off, on, missing (a warning
and no sandbox, or with failIfUnavailable one that refuses every command)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lull.runtime.sandbox import command_sandbox, sandbox_policy
from lull.settings.model import (
    SandboxFilesystemSettings,
    SandboxSettings,
    Settings,
)
from lull.tools.base import ToolContext, ToolError
from lull.tools.builtin.shell import ShellTool
from lull.tools.process.sandbox.probe import Availability

MISSING = Availability(
    "linux", missing="bubblewrap is not installed: apt-get install bubblewrap socat"
)
READY = Availability("linux", "/usr/bin/bwrap", "/usr/bin/socat")


def _settings(fail_if_unavailable: bool = False) -> Settings:
    return Settings(sandbox=SandboxSettings(enabled=True, fail_if_unavailable=fail_if_unavailable))


def test_off_gives_no_sandbox(workspace: Path) -> None:
    notes: list[str] = []
    assert command_sandbox(Settings(), workspace, notes, READY) is None
    assert notes == []


def test_missing_warns_and_runs_without(workspace: Path) -> None:
    notes: list[str] = []
    assert command_sandbox(_settings(), workspace, notes, MISSING) is None
    assert notes == [
        "the sandbox cannot start: bubblewrap is not installed: apt-get install bubblewrap "
        "socat; commands run without it and are asked about as usual (/sandbox)"
    ]


def test_missing_with_fail_if_unavailable_refuses_commands(workspace: Path, tmp_path: Path) -> None:
    notes: list[str] = []
    sandbox = command_sandbox(_settings(fail_if_unavailable=True), workspace, notes, MISSING)
    assert sandbox is not None and "commands are refused" in notes[0]
    assert not sandbox.auto_allow
    ctx = ToolContext(workspace, tmp_path / "out", sandbox=sandbox)
    with pytest.raises(ToolError, match="bubblewrap is not installed"):
        asyncio.run(ShellTool().run({"command": "touch x"}, ctx))
    assert not (workspace / "x").exists()


def test_the_policy_hides_credentials_and_lulls_own_directories(
    workspace: Path, isolated_env: Path
) -> None:
    files = SandboxFilesystemSettings(allow_write=("~/.cache",), deny_write=(".git/hooks",))
    policy = sandbox_policy(
        Settings(sandbox=SandboxSettings(filesystem=files)), workspace, home=isolated_env
    )
    ws = workspace.resolve()
    assert policy.writable == (ws, (isolated_env / ".cache").resolve())
    assert policy.read_only == (ws / ".git" / "hooks",)
    assert isolated_env.resolve() / ".ssh" in policy.hidden
    assert (isolated_env / "config" / "lull").resolve() in policy.hidden
    assert (isolated_env / "data" / "lull").resolve() in policy.hidden
