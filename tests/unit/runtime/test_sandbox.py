"""The sandbox settings turned into the sandbox commands run in: off, on, missing (a warning
and no sandbox, or with failIfUnavailable one that refuses every command)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.model.permissions import SaveScope
from lull.runtime import RunOptions, build_runtime
from lull.runtime.sandbox import command_sandbox, sandbox_policy
from lull.settings.model import (
    SandboxFilesystemSettings,
    SandboxSettings,
    Settings,
)
from lull.settings.rule_files import workspace_rules_path
from lull.tools.base import ToolContext, ToolError
from lull.tools.builtin.shell import ShellTool
from lull.tools.process.sandbox.probe import Availability, probe
from tests.loopback import FETCH, HELLO, hello_server

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


class Always:
    """An approver that answers "always" for ``scope`` and records each question."""

    def __init__(self, scope: SaveScope) -> None:
        self.scope = scope
        self.asked: list[str] = []

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        self.asked.append(f"{call.name}({call.arguments['host']}): {', '.join(rules)}")
        return Approval("allow_always", remember=self.scope)


async def _questions_of_a_fetch(options: RunOptions, scope: SaveScope, port: int) -> list[str]:
    """Start lull, fetch from the loopback server in a sandboxed command (answering "always"
    for ``scope``), stop it; the questions asked."""
    runtime = build_runtime(options, env={})
    try:
        answers = runtime.agent.tools.approver = Always(scope)
        fetch = {"command": FETCH.format(host="localhost", port=port)}
        out = await ShellTool().run(fetch, runtime.agent.tools.context)
        assert HELLO in out.content, out.content
    finally:
        runtime.close()
    return answers.asked


@pytest.mark.parametrize("scope", ["workspace", "user"])
async def test_always_saves_a_new_domain_where_its_rules_go_and_a_restart_admits_it(
    workspace: Path, isolated_env: Path, scope: SaveScope
) -> None:
    if not probe().ready:
        pytest.skip(f"no sandbox here: {probe().missing}")
    user = isolated_env / "config" / "lull" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('{\n  "sandbox": {"enabled": true},\n  "model": {"name": "demo"}\n}\n')
    options = RunOptions(workspace=workspace, demo=True)
    with hello_server() as port:
        assert await _questions_of_a_fetch(options, scope, port) == [
            "sandbox_network(localhost): network access to localhost "
            "(sandbox.network.allowedDomains)"
        ]
        saved = json.loads(user.read_text())
        assert saved["model"] == {"name": "demo"}  # the file's other keys stay
        if scope == "user":
            assert saved["sandbox"] == {
                "enabled": True, "network": {"allowedDomains": ["localhost"]}
            }  # fmt: skip
        else:
            assert "network" not in saved["sandbox"]
            kept = json.loads(workspace_rules_path().read_text())
            entry = kept["workspaces"][str(workspace.resolve())]
            assert entry == {"sandbox": {"network": {"allowedDomains": ["localhost"]}}}
            assert not (workspace / ".lull").exists()  # never the project's file
        assert await _questions_of_a_fetch(options, scope, port) == []  # a restart admits it
