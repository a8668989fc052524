"""/trust: trust this workspace (or stop trusting it), so that what its project files ask to
run (MCP servers, hooks, allow rules) may apply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, hint, say

if TYPE_CHECKING:
    from lull.runtime import Runtime

MEANING = (
    "what this workspace's project files ask to run or allow (MCP servers, hooks, allow rules "
    "and added directories in .lull/settings.json, .claude/settings.json and .mcp.json) may "
    "apply"
)


def trust_command(runtime: Runtime, arg: str) -> CommandResult:
    """/trust grants trust to the workspace; /trust status shows it; /trust revoke takes it
    back (for this directory itself)."""
    from lull.settings.workspaces import distrust, trust, trust_path, trusted_root
    from lull.settings.writer import WriteProblem

    workspace = runtime.workspace
    argument = arg.strip().lower()
    root = trusted_root(workspace)
    if argument == "status":
        if root is None:
            return say(f"{workspace} is not trusted; /trust trusts it: {MEANING}")
        return say(f"{workspace} is trusted (through {root}, in {trust_path()})")
    if argument == "revoke":
        if not distrust(workspace):
            where = f" (it is trusted through {root})" if root and root != workspace else ""
            return hint(f"{workspace} is not in the trusted list{where}")
        runtime.trust_changed()
        return say(
            f"{workspace} is no longer trusted; its hooks and allow rules stop applying now, "
            "its MCP servers from the next start"
        )
    if argument:
        return hint(
            f"unknown /trust argument {argument!r}; try /trust, /trust status or /trust revoke"
        )
    if root is not None:
        return say(f"{workspace} is already trusted (through {root})")
    try:
        saved = trust(workspace)
    except WriteProblem as problem:
        return hint(str(problem))
    started = runtime.workspace_trusted()
    now = f"; starting its MCP servers now: {', '.join(started)}" if started else ""
    return say(
        f"trusted {workspace} (saved in {saved}): {MEANING}{now}; its hooks and allow rules "
        "apply from now on"
    )
