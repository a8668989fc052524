"""/sandbox: whether the sandbox is on, what it allows, and what is missing to turn it on."""

from __future__ import annotations

import json
from pathlib import Path

from lull.commands import run_command
from lull.commands.sandbox import sandbox_report
from lull.runtime import RunOptions, build_runtime
from lull.tools.builtin.shell import SandboxedShellTool
from lull.tools.process.sandbox.policy import SandboxPolicy
from lull.tools.process.sandbox.probe import Availability, probe
from lull.tools.process.sandbox.sandbox import Sandbox

MISSING = Availability(
    "linux", missing="bubblewrap is not installed: apt-get install bubblewrap socat"
)


def test_a_missing_bubblewrap_is_named_with_how_to_install_it(workspace: Path) -> None:
    report = sandbox_report(True, MISSING, SandboxPolicy(workspace, (workspace,)))
    assert "missing: bubblewrap is not installed: apt-get install bubblewrap socat" in report
    assert "the sandbox is on but cannot start" in report


def test_off_says_how_to_turn_it_on(workspace: Path, isolated_env: Path) -> None:
    runtime = build_runtime(RunOptions(workspace=workspace, demo=True), env={})
    try:
        text = "\n".join(run_command(runtime, "/sandbox").lines)
    finally:
        runtime.close()
    assert "the sandbox is off" in text and '"enabled": true' in text
    assert f"write: {workspace.resolve()}" in text


def test_on_shows_the_running_sandbox_and_what_it_allows(
    workspace: Path, isolated_env: Path
) -> None:
    user = isolated_env / "config" / "lull" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    network = {"allowedDomains": ["pypi.org"], "allowUnixSockets": ["/run/x.sock"]}
    sandbox = {"enabled": True, "network": network}
    user.write_text(json.dumps({"sandbox": sandbox}))
    runtime = build_runtime(RunOptions(workspace=workspace, demo=True), env={})
    try:
        running = runtime.agent.tools.context.sandbox
        shell = runtime.agent.tools.registry.get("run_shell_command")
        text = "\n".join(run_command(runtime, "/sandbox").lines)
    finally:
        runtime.close()
    if probe().ready:
        assert isinstance(running, Sandbox)
        assert isinstance(shell, SandboxedShellTool)
        assert "dangerously_disable_sandbox" in shell.parameters["properties"]
        assert "the sandbox is on: every command" in text
    else:
        assert running is None
        assert "missing:" in text
    assert "network: pypi.org" in text
    assert "Unix sockets outside the writable places: /run/x.sock" in text
    assert "localhost: requests go through the proxy" in text
