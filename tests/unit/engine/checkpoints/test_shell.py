"""Shell commands in a git work tree (auto-edit / yolo): the files they change (tracked,
dirty, untracked, deleted, created) are recorded and /undo puts them back; not in default
mode, not outside a git work tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from lull.engine.checkpoints.files import CheckpointStore, SessionCheckpoints
from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run


def git(workspace: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=workspace,
        check=True,
        capture_output=True,
    )


def shell(command: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=(ScriptedCall("run_shell_command", {"command": command}),))


class Allow:
    """An approver that allows every call (the user said yes)."""

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        return Approval("allow")


def _repository(workspace: Path) -> None:
    git(workspace, "init", "-q")
    (workspace / "clean.txt").write_text("committed\n")
    (workspace / "dirty.txt").write_text("committed\n")
    (workspace / ".gitignore").write_text("ignored.log\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "init")
    (workspace / "dirty.txt").write_text("work in progress\n")
    (workspace / "untracked.txt").write_text("mine\n")


async def _shell_turn(
    provider: ScriptedProvider, make_agent: AgentFactory, tmp_path: Path, mode: str, line: str
) -> SessionCheckpoints:
    agent = make_agent(mode=mode)
    agent.set_approver(Allow())
    agent.tools.checkpoints = CheckpointStore(tmp_path / "checkpoints")
    provider.script(shell(line), ScriptedReply(text="done"))
    await run(agent, "change things")
    log = agent.tools.checkpoint_log
    assert log is not None
    return log


async def test_a_shell_commands_changes_are_recorded_and_undone(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    _repository(workspace)
    line = (
        "echo more >> clean.txt && echo more >> dirty.txt && rm untracked.txt && "
        "echo new > created.txt && echo noise > ignored.log"
    )
    log = await _shell_turn(provider, make_agent, tmp_path, "yolo", line)
    root = workspace.resolve()
    changed = sorted(Path(c.path).name for c in log.changes())
    assert changed == ["clean.txt", "created.txt", "dirty.txt", "untracked.txt"]
    report = log.undo_last()
    assert sorted((Path(p).name, action) for p, action in report.changed) == [
        ("clean.txt", "restored"),
        ("created.txt", "deleted"),
        ("dirty.txt", "restored"),
        ("untracked.txt", "recreated"),
    ]
    assert (root / "clean.txt").read_text() == "committed\n"
    assert (root / "dirty.txt").read_text() == "work in progress\n"
    assert (root / "untracked.txt").read_text() == "mine\n"
    assert not (root / "created.txt").exists()
    assert (root / "ignored.log").exists()  # ignored files are not tracked


async def test_not_in_default_mode_nor_outside_a_git_work_tree(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("one\n")
    log = await _shell_turn(provider, make_agent, tmp_path, "yolo", "echo two > a.txt")
    assert log.changes() == []  # no git work tree
    _repository(workspace)
    provider.script()
    log = await _shell_turn(provider, make_agent, tmp_path / "d", "default", "echo x > clean.txt")
    assert (workspace / "clean.txt").read_text() == "x\n"  # it ran (the user allowed it)
    assert log.changes() == []  # the user approved this very command: nothing recorded
