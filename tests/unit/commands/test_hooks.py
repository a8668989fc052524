"""/hooks: every configured hook by event, with its matcher, timeout and file; a project's
marked as waiting for /trust until the workspace is trusted."""

from __future__ import annotations

import json
from pathlib import Path

from lull.commands import run_command
from lull.runtime import RunOptions, build_runtime


def _settings(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_hooks_are_listed_with_their_sources(workspace: Path, isolated_env: Path) -> None:
    runtime = build_runtime(RunOptions(workspace=workspace, demo=True), env={})
    assert run_command(runtime, "/hooks").lines[0].startswith("no hooks;")
    runtime.close()
    command = {"type": "command", "command": "./check.sh", "timeout": 5}
    user = _settings(
        isolated_env / "config" / "lull" / "settings.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [command]}]}},
    )
    project = _settings(
        workspace / ".lull" / "settings.json",
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make test"}]}]}},
    )
    runtime = build_runtime(RunOptions(workspace=workspace, demo=True), env={})
    lines = run_command(runtime, "/hooks").lines
    assert lines[1:] == (
        "  PreToolUse:",
        f"    [Bash] ./check.sh  (timeout 5 s, {user})",
        "  Stop:",
        f"    make test  (timeout 60 s, {project} (project); not run until you /trust this "
        "workspace)",
    )
    run_command(runtime, "/trust")
    assert "not run until" not in run_command(runtime, "/hooks").lines[-1]
    assert run_command(runtime, "/hooks all").error
    runtime.close()
