"""Commands in the real bubblewrap sandbox: what they cannot do, and that it is reported."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path

import pytest

from lull.engine.calls.runner import ToolRunner
from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.runtime.sandbox import confine_runner
from lull.settings.model import Settings
from lull.tools.base import ToolContext, ToolError
from lull.tools.builtin.shell import SandboxedShellTool as ShellTool
from lull.tools.registry import ToolRegistry
from tests.loopback import FETCH
from tests.processes import cancel_and_see_the_group_gone, child_pids, wait_for_text
from tests.unit.tools.process.sandbox.conftest import FAKE_KEY, MakeSandbox, Place

pytestmark = pytest.mark.usefixtures("needs_bwrap")


async def run(ctx: ToolContext, command: str, **args: object) -> tuple[str, dict[str, object]]:
    out = await ShellTool().run({"command": command, **args}, ctx)
    return out.content, dict(out.metadata)


async def test_the_workspace_and_tmpdir_are_writable(sandboxed: ToolContext, place: Place) -> None:
    content, meta = await run(
        sandboxed, 'echo hi > made.txt && echo t > "$TMPDIR/t" && cat made.txt'
    )
    assert meta["exit_code"] == 0, content
    assert (place.workspace / "made.txt").read_text() == "hi\n"
    assert "sandbox_denials" not in meta


async def test_writing_outside_the_workspace_fails_and_is_reported(
    sandboxed: ToolContext, place: Place
) -> None:
    target = place.outside / "new.txt"
    content, meta = await run(sandboxed, f"echo x > {target}")
    assert meta["exit_code"] != 0
    assert not target.exists()
    assert f"Sandbox: the sandbox denied writing {target}" in content
    assert "sandbox.filesystem.allowWrite" in content


async def test_reading_an_ssh_key_fails_and_is_reported(
    sandboxed: ToolContext, place: Place
) -> None:
    content, meta = await run(sandboxed, "cat ~/.ssh/id_rsa")
    assert meta["exit_code"] != 0
    assert FAKE_KEY not in content
    assert f"denied access to {place.home / '.ssh' / 'id_rsa'}" in content


RM_SPELLINGS = (
    "rm -rf {dir}",
    "rm -r -f {dir}",
    "/bin/rm -rf {dir}",
    "command rm -rf {dir}",
    "find {dir} -delete",
    "bash -c 'rm -rf {dir}'",
    f"{sys.executable} -c 'import shutil; shutil.rmtree(\"{{dir}}\")'",
)


@pytest.mark.parametrize("spelling", RM_SPELLINGS)
async def test_no_spelling_of_rm_deletes_a_directory_outside_the_workspace(
    sandboxed: ToolContext, place: Place, spelling: str
) -> None:
    content, meta = await run(sandboxed, spelling.format(dir=place.outside / "keep"))
    assert (place.outside / "keep" / "file.txt").read_text() == "still here"
    assert meta["exit_code"] != 0, content
    named = f"the sandbox denied writing {place.outside / 'keep'}" in content
    guessed = f"does not name the path, but the command names {place.outside / 'keep'}"
    assert named or guessed in content, content  # rmtree names files relative to their folder


async def test_a_domain_not_allowed_is_refused_and_named(
    place: Place, make_sandbox: MakeSandbox, loopback_server: int, tmp_path: Path
) -> None:
    ctx = ToolContext(place.workspace, tmp_path / "out", sandbox=make_sandbox(("example.org",)))
    content, meta = await run(ctx, FETCH.format(host="localhost", port=loopback_server))
    assert meta["exit_code"] != 0
    assert "hello from loopback" not in content
    assert "denied network access to localhost" in content


async def test_an_allowed_domain_is_reached_through_the_proxy(
    place: Place, make_sandbox: MakeSandbox, loopback_server: int, tmp_path: Path
) -> None:
    ctx = ToolContext(place.workspace, tmp_path / "out", sandbox=make_sandbox(("localhost",)))
    content, meta = await run(ctx, FETCH.format(host="localhost", port=loopback_server))
    assert meta["exit_code"] == 0, content
    assert "hello from loopback" in content


async def test_without_the_proxy_there_is_no_network(
    sandboxed: ToolContext, loopback_server: int
) -> None:
    fetch = FETCH.format(host="127.0.0.1", port=loopback_server)
    content, meta = await run(sandboxed, f"env -u HTTP_PROXY -u http_proxy {fetch}")
    assert meta["exit_code"] != 0
    assert "hello from loopback" not in content


async def test_an_excluded_command_runs_outside(
    place: Place, make_sandbox: MakeSandbox, tmp_path: Path
) -> None:
    ctx = ToolContext(
        place.workspace, tmp_path / "out", sandbox=make_sandbox(excluded_commands=("touch",))
    )
    target = place.outside / "by-excluded"
    content, meta = await run(ctx, f"touch {target}")
    assert meta["exit_code"] == 0, content
    assert target.exists()


async def test_running_outside_the_sandbox_needs_the_users_leave(
    place: Place, make_sandbox: MakeSandbox, tmp_path: Path
) -> None:
    target = place.outside / "unsandboxed"
    allowed = ToolContext(place.workspace, tmp_path / "out", sandbox=make_sandbox())
    content, meta = await run(allowed, f"touch {target}", dangerously_disable_sandbox=True)
    assert meta["exit_code"] == 0 and target.exists(), content
    refused = ToolContext(
        place.workspace, tmp_path / "out", sandbox=make_sandbox(allow_unconfined=False)
    )
    with pytest.raises(ToolError, match="allowUnsandboxedCommands is false"):
        await run(refused, f"rm {target}", dangerously_disable_sandbox=True)
    assert target.exists()


async def test_a_cancel_still_kills_the_whole_group(sandboxed: ToolContext, place: Place) -> None:
    before = child_pids()
    command = "sleep 120 & echo started > started; sleep 120"
    task = asyncio.create_task(ShellTool().run({"command": command}, sandboxed))
    await wait_for_text(place.workspace / "started", task.done)
    (pgid,) = child_pids() - before  # bwrap, the leader of the command's group
    await cancel_and_see_the_group_gone(task, pgid, "sandboxed command")


async def test_hooks_run_inside_when_the_user_says_so(
    place: Place, make_sandbox: MakeSandbox
) -> None:
    from lull.engine.hooks.runner import HookRunner
    from lull.model.hooks import HookCommand

    outside, inside = place.outside / "by-hook", place.workspace / "by-hook"
    hook = HookCommand("Stop", f"touch {inside}; touch {outside}")
    runner = HookRunner([hook], workspace=place.workspace, sandbox=make_sandbox())
    await runner.run("Stop", {})
    assert inside.exists() and not outside.exists()
    await HookRunner([hook], workspace=place.workspace).run("Stop", {})
    assert outside.exists()  # without a sandbox the hook is the user's own command


async def test_a_projects_stdio_mcp_server_runs_inside_when_the_user_says_so(
    needs_bwrap: None, place: Place, make_sandbox: MakeSandbox
) -> None:
    """``sandbox.mcpServers``: the server works, and cannot write outside the workspace."""
    from lull.mcp.manager import McpManager
    from lull.model.mcp import McpServerConfig
    from lull.tools.registry import ToolRegistry

    outside, inside = place.outside / "by-server", place.workspace / "by-server"
    root = str(Path(__file__).resolve().parents[5])
    config = McpServerConfig(
        "proj",
        command=sys.executable,
        args=("-m", "tests.mcp.server", "--touch", str(outside), "--touch", str(inside)),
        env=(("PYTHONPATH", root),),
        scope="project",
        timeout_seconds=30,
    )
    user = dataclasses.replace(config, name="mine", scope="user", args=config.args[:2])
    manager = McpManager(
        (config, user), ToolRegistry([]), place.workspace, "anthropic",
        trusted=lambda: True, sandbox=make_sandbox(),
    )  # fmt: skip
    project, own = manager.connections
    assert project.sandbox is not None and own.sandbox is None  # the user's own run as they are
    try:
        await project.connect()
        result = await project.call("echo", {"text": "hi"})
        assert "hi" in str(result.content)
        said = project.stderr.text()
        assert f"touch {outside}: Read-only file system" in said
        assert f"touch {inside}: written" in said
        assert not outside.exists() and inside.read_text() == "written by the server"
    finally:
        await project.close()


class Answers:
    """An approver that answers the domain question as told and counts the questions."""

    def __init__(self, decision: str) -> None:
        self.decision = decision
        self.asked: list[str] = []

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        self.asked.append(f"{call.name}: {summary}")
        return Approval(self.decision)  # type: ignore[arg-type]


@pytest.mark.parametrize("decision", ["allow", "deny"])
async def test_a_new_domain_is_asked_about_once_a_session(
    place: Place, make_sandbox: MakeSandbox, loopback_server: int, tmp_path: Path, decision: str
) -> None:
    sandbox = make_sandbox(("example.org",))
    ctx = ToolContext(place.workspace, tmp_path / "out", sandbox=sandbox)
    answers = Answers(decision)
    runner = ToolRunner(ToolRegistry(), ctx, "default", answers)
    confine_runner(runner, Settings())
    fetch = FETCH.format(host="localhost", port=loopback_server)
    for _ in range(2):
        content, _ = await run(ctx, fetch)
        assert ("hello from loopback" in content) == (decision == "allow"), content
    assert answers.asked == [
        "sandbox_network: localhost: a sandboxed command wants to reach it (not in allowedDomains)"
    ]
