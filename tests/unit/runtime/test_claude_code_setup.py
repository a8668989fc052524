"""A folder set up for Claude Code works in lull unchanged once trusted: its settings' hook
runs (a real script), its deny rule denies, its allow rule allows, its command expands, its
agent is offered with its model, CLAUDE.md's import reaches the system prompt, and /hooks and
/permissions say which file each entry came from."""

from __future__ import annotations

import json
from pathlib import Path

from lull.commands import run_command
from lull.model.events import ToolFinished
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.settings.workspaces import trust
from tests.support import demo_runtime
from tests.unit.commands.support import drive

HOOK = """\
#!/bin/sh
# Claude Code's PreToolUse hook: the event arrives as JSON on stdin.
cat >> "$(dirname "$0")/../../hook-log.jsonl"
echo >> "$(dirname "$0")/../../hook-log.jsonl"
"""


def claude_code_project(workspace: Path) -> Path:
    """Write the setup a Claude Code user has; returns its settings file."""
    claude = workspace / ".claude"
    (claude / "hooks").mkdir(parents=True)
    (claude / "commands").mkdir()
    (claude / "agents").mkdir()
    (workspace / "docs").mkdir()
    hook = claude / "hooks" / "log.sh"
    hook.write_text(HOOK, "utf-8")
    hook.chmod(0o755)
    settings = claude / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(echo:*)"], "deny": ["Read(./secret.txt)"]},
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": str(hook)}]}
                    ]
                },
            }
        ),
        "utf-8",
    )
    (claude / "commands" / "greet.md").write_text(
        "---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.", "utf-8"
    )
    (claude / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a change\nmodel: haiku\n---\nYou review.\n",
        "utf-8",
    )
    (workspace / "CLAUDE.md").write_text("# Rules\n@docs/style.md\n", "utf-8")
    (workspace / "docs" / "style.md").write_text("Always use tabs, never spaces.", "utf-8")
    (workspace / "secret.txt").write_text("hunter2", "utf-8")
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {}}), "utf-8")
    return settings


async def test_a_claude_code_setup_works_unchanged_once_trusted(workspace: Path) -> None:
    settings = claude_code_project(workspace)
    trust(workspace)
    provider = ScriptedProvider(
        [
            ScriptedReply(tool_calls=(ScriptedCall("run_shell_command", {"command": "echo hi"}),)),
            ScriptedReply(tool_calls=(ScriptedCall("read_file", {"path": "secret.txt"}),)),
            ScriptedReply(text="done"),
        ]
    )
    runtime = demo_runtime(workspace, provider, env={})

    events = await drive(run_command(runtime, "/greet Bob"))

    request = provider.requests[0]
    assert "Say hello to Bob." in request.messages[-1].text  # the command expanded
    assert "Always use tabs, never spaces." in request.environment  # CLAUDE.md's import
    task = next(spec for spec in request.tools if spec.name == "task")
    assert "reviewer: Reviews a change" in task.description  # the agent is offered
    assert runtime.agent.tools.registry.get("task").profiles["reviewer"].model == "haiku"  # type: ignore[union-attr]
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    assert finished[0].content.endswith("stdout:\nhi")  # allowed by Bash(echo:*): unasked
    assert "Read(./secret.txt)" in finished[1].content and "hunter2" not in finished[1].content
    logged = (workspace / "hook-log.jsonl").read_text("utf-8").strip().splitlines()
    assert [json.loads(line)["tool_input"]["command"] for line in logged] == ["echo hi"]

    hooks = "\n".join(run_command(runtime, "/hooks").lines)
    assert f"{settings} (project)" in hooks
    permissions = "\n".join(run_command(runtime, "/permissions").lines)
    assert f"Read(./secret.txt)  {settings} (project)" in permissions
