"""/mcp: the MCP servers, their status, how many tools each offers and the last error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, no_argument, say

if TYPE_CHECKING:
    from lull.runtime import Runtime

NONE_CONFIGURED = (
    "no MCP servers configured; add one with `lull mcp add NAME COMMAND [ARGS...]` or under "
    "mcpServers in your settings.json (a project's .mcp.json is read too)"
)


def mcp_command(runtime: Runtime, arg: str) -> CommandResult:
    """/mcp: one line per server (name, state, tools, where it comes from), then its last
    error indented below it."""
    if (problem := no_argument("mcp", arg)) is not None:
        return problem
    if runtime.mcp is None:
        return say(NONE_CONFIGURED)
    lines: list[str] = []
    for status in runtime.mcp.statuses():
        tools = f"{status.tools} tool{'s' if status.tools != 1 else ''}"
        restarts = f", started {status.starts}x" if status.starts > 1 else ""
        origin = "user" if status.scope == "user" else f"project: {status.source}"
        lines.append(
            f"{status.name}: {status.state} · {tools} · {status.transport} ({origin}){restarts}"
        )
        if status.state == "needs trust":
            lines.append("  runs a command from this repository; /trust starts it")
        if status.last_error:
            lines.append(f"  last error: {status.last_error}")
    return CommandResult(tuple(lines))
