"""The hook runner with real scripts: the event's JSON on stdin, exit 0 / 2 / other codes,
JSON decisions, a timeout that kills the command's process group, the debug log with the
duration, and a project's hooks that wait for trust."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import stat
import subprocess
from pathlib import Path

import pytest

from lull.engine.hooks.runner import HookRunner, describe, input_from_hook
from lull.model.hooks import HookCommand, HookEvent
from tests.processes import (
    block_until_written,
    cancel_and_see_the_group_gone,
    child_pids,
    step_until_a_child_starts,
)


def script(tmp_path: Path, name: str, body: str) -> str:
    """A real executable bash script; returns the command that runs it."""
    path = tmp_path / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def hook(event: HookEvent, command: str, **kw: object) -> HookCommand:
    return HookCommand(event, command, **kw)  # type: ignore[arg-type]


async def test_the_command_gets_the_event_as_json_on_stdin(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    command = script(tmp_path, "log.sh", f'cat > "{seen}"\n')
    runner = HookRunner([hook("PreToolUse", command, matcher="Bash")], workspace=tmp_path)
    outcome = await runner.run(
        "PreToolUse",
        {"tool_name": "run_shell_command", "tool_input": {"command": "ls"}},
        target="run_shell_command",
        session_id="s1",
        transcript=tmp_path / "s1.jsonl",
        mode="auto-edit",
    )
    assert not outcome.blocked
    payload = json.loads(seen.read_text())
    assert payload == {
        "session_id": "s1",
        "transcript_path": str(tmp_path / "s1.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "permission_mode": "acceptEdits",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "ls"},
    }


async def test_matchers_use_lull_or_claude_code_tool_names(tmp_path: Path) -> None:
    hooks = [hook("PreToolUse", "true", matcher=m) for m in ("Bash", "Edit|Write", "read_.*")]
    runner = HookRunner(hooks, workspace=tmp_path)
    assert [h.matcher for h in runner.matching("PreToolUse", "run_shell_command")] == ["Bash"]
    assert runner.matching("PreToolUse", "read_file")[0].matcher == "read_.*"
    assert runner.matching("PostToolUse", "read_file") == []


async def test_exit_0_stdout_is_context_for_prompt_events_only(tmp_path: Path) -> None:
    command = script(tmp_path, "say.sh", "echo 'branch: main'\n")
    runner = HookRunner(
        [hook("UserPromptSubmit", command), hook("PostToolUse", command)], workspace=tmp_path
    )
    assert (await runner.run("UserPromptSubmit", {"prompt": "hi"})).context == ["branch: main"]
    assert (await runner.run("PostToolUse", {}, target="edit")).context == []


async def test_exit_2_blocks_with_stderr_and_other_codes_are_notices(tmp_path: Path) -> None:
    block = script(tmp_path, "block.sh", "echo 'no rm here' >&2\nexit 2\n")
    fail = script(tmp_path, "fail.sh", "echo 'lint crashed' >&2\nexit 3\n")
    runner = HookRunner([hook("PreToolUse", block), hook("PostToolUse", fail)], workspace=tmp_path)
    blocked = await runner.run("PreToolUse", {}, target="run_shell_command")
    assert blocked.blocked and blocked.reason == "no rm here"
    failed = await runner.run("PostToolUse", {}, target="edit")
    assert not failed.blocked
    assert [n.text for n in failed.notices] == [
        f"{describe(runner.hooks[1])} failed (exit 3): lint crashed"
    ]


async def test_a_json_answer_decides_and_changes_the_input(tmp_path: Path) -> None:
    answer = {
        "systemMessage": "rewrote the path",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "docs are fine",
            "updatedInput": {"file_path": str(tmp_path / "b.txt"), "content": "x"},
        },
    }
    command = script(tmp_path, "json.sh", f"cat <<'END'\n{json.dumps(answer)}\nEND\n")
    runner = HookRunner([hook("PreToolUse", command)], workspace=tmp_path)
    outcome = await runner.run("PreToolUse", {}, target="write_file")
    assert outcome.permission == "allow" and outcome.permission_reason == "docs are fine"
    assert [n.text for n in outcome.notices] == ["rewrote the path"]
    assert outcome.updated_input is not None
    arguments = input_from_hook(outcome.updated_input, {"path": "a.txt", "content": "y"})
    assert arguments == {"path": str(tmp_path / "b.txt"), "content": "x"}


async def test_a_json_deny_and_a_legacy_block_decision(tmp_path: Path) -> None:
    deny = json.dumps(
        {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}
    )
    pre = script(tmp_path, "deny.sh", f"echo '{deny}'\n")
    stop = script(tmp_path, "stop.sh", 'echo \'{"decision": "block", "reason": "tests fail"}\'\n')
    runner = HookRunner([hook("PreToolUse", pre), hook("Stop", stop)], workspace=tmp_path)
    denied = await runner.run("PreToolUse", {}, target="edit")
    assert denied.blocked and denied.permission == "deny" and denied.reason == "no"
    held = await runner.run("Stop", {})
    assert held.blocked and held.reason == "tests fail"


async def test_a_hook_past_its_timeout_is_killed_with_its_process_group(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pid_file = tmp_path / "child.pid"
    command = script(tmp_path, "hang.sh", f'sleep 600 &\necho $! > "{pid_file}"\nwait\n')
    runner = HookRunner([hook("PreToolUse", command, timeout=0.5)], workspace=tmp_path)
    try:
        with caplog.at_level(logging.INFO, logger="lull.hooks"):
            # far less than the 600 s the background sleep would hold the pipes open
            outcome = await asyncio.wait_for(runner.run("PreToolUse", {}, target="edit"), 30)
    finally:
        if pid_file.exists() and pid_file.read_text().strip():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert not outcome.blocked
    assert [n.text for n in outcome.notices] == [
        f"{describe(runner.hooks[0])} timed out after 0.5 s and was killed"
    ]
    child = int(pid_file.read_text())
    assert _exists(os.getpid())  # the control: the probe sees a live process
    assert not _exists(child)  # the sleep in the background went with the group
    (record,) = [r.getMessage() for r in caplog.records if r.name == "lull.hooks"]
    assert "timed out after 0.5 s (killed) in" in record and record.endswith(" ms")


async def test_a_cancel_while_the_hook_starts_stops_its_whole_group(tmp_path: Path) -> None:
    """bash runs (and has started a child) but asyncio has not handed it over yet when the
    turn is cancelled: the loop is held there, then the run is cancelled."""
    command = script(tmp_path, "slow.sh", f'sleep 120 &\necho $$ > "{tmp_path}/pgid"\nsleep 120\n')
    runner = HookRunner([hook("PreToolUse", command, timeout=100)], workspace=tmp_path)
    before = child_pids()
    task = asyncio.create_task(runner.run("PreToolUse", {}, target="edit"))
    await step_until_a_child_starts(before)
    pgid = int(block_until_written(tmp_path / "pgid"))
    await cancel_and_see_the_group_gone(task, pgid, "hook")


def _exists(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process, as ``ps`` sees it (no /proc needed: a
    missing /proc must not make every process look gone)."""
    ps = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    state = ps.stdout.strip()
    return bool(state) and state[0] not in "ZX"


async def test_every_run_is_logged_with_its_exit_code_and_duration(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    runner = HookRunner([hook("Stop", "exit 0", source="/u/settings.json")], workspace=tmp_path)
    with caplog.at_level(logging.INFO, logger="lull.hooks"):
        await runner.run("Stop", {})
    (record,) = [r.getMessage() for r in caplog.records if r.name == "lull.hooks"]
    assert record.startswith("hook Stop 'exit 0' (/u/settings.json): exit 0 in ")


async def test_a_project_hook_runs_only_in_a_trusted_workspace(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = script(tmp_path, "touch.sh", f'touch "{marker}"\n')
    trusted = False
    runner = HookRunner(
        [hook("SessionStart", command, project=True)],
        workspace=tmp_path,
        trusted=lambda: trusted,
    )
    assert runner.waiting_for_trust()
    await runner.run("SessionStart", {"source": "startup"}, target="startup")
    assert not marker.exists()
    trusted = True
    await runner.run("SessionStart", {"source": "startup"}, target="startup")
    assert marker.exists() and not runner.waiting_for_trust()


async def test_a_command_that_ignores_stdin_and_secrets_stay_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "sekrit")
    body = 'echo "token=${GITHUB_TOKEN:-none} dir=$CLAUDE_PROJECT_DIR"\n'
    command = script(tmp_path, "env.sh", body)
    runner = HookRunner([hook("SessionStart", command)], workspace=tmp_path)
    outcome = await runner.run("SessionStart", {"source": "startup"}, target="startup")
    assert outcome.context == [f"token=none dir={tmp_path}"]
