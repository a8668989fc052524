"""/mcp: the MCP servers, their status, how many tools each offers, the last error with the
server's last stderr lines, and which tools are deferred (``tools.toolSearch``) with what
that keeps out of each request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, no_argument, say
from lull.context.estimate import estimate_spec_tokens
from lull.model.mcp import TOOL_PREFIX
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.tools.deferral import DeferredTools, tool_spec

if TYPE_CHECKING:
    from lull.runtime import Runtime

NONE_CONFIGURED = (
    "no MCP servers configured; add one with `lull mcp add NAME COMMAND [ARGS...]` or under "
    "mcpServers in your settings.json (a project's .mcp.json is read too)"
)


def mcp_command(runtime: Runtime, arg: str) -> CommandResult:
    """/mcp: one line per server (name, state, tools, where it comes from), then its last
    error and the last lines of its stderr indented below it."""
    if (problem := no_argument("mcp", arg)) is not None:
        return problem
    if runtime.mcp is None:
        return say(NONE_CONFIGURED)
    deferred = runtime.agent.tools.registry.deferred
    lines: list[str] = []
    for status in runtime.mcp.statuses():
        tools = f"{status.tools} tool{'s' if status.tools != 1 else ''}"
        prefix = f"{TOOL_PREFIX}{status.name}__"
        hidden = [
            e.name.removeprefix(prefix) for e in deferred.pending() if e.name.startswith(prefix)
        ]
        if hidden:
            tools += f", {len(hidden)} deferred"
        restarts = f", started {status.starts}x" if status.starts > 1 else ""
        origin = f"{status.scope}: {status.source}" if status.source else status.scope
        lines.append(
            f"{status.name}: {status.state} · {tools} · {status.transport} ({origin}){restarts}"
        )
        if status.state == "needs trust":
            lines.append("  runs a command from this repository; /trust starts it")
        if status.last_error:
            lines.append(f"  last error: {status.last_error}")
            if status.stderr:
                lines.append("  its stderr ends:")
                lines.extend(f"    {line}" for line in status.stderr)
        if hidden:
            lines.append(f"  deferred (tool_search loads them): {', '.join(hidden)}")
        loaded = [n.removeprefix(prefix) for n in deferred.loaded_names if n.startswith(prefix)]
        if loaded:
            lines.append(f"  loaded: {', '.join(loaded)}")
    lines.extend(tool_search_lines(runtime, deferred))
    return CommandResult(tuple(lines))


def tool_search_lines(runtime: Runtime, deferred: DeferredTools) -> list[str]:
    """What ``tools.toolSearch`` does in this run: the setting, and what the deferred tools
    keep out of each request (their schemas, less ``tool_search``'s listing of them)."""
    policy = deferred.policy
    if policy is None:  # no tool search in this run (tools built by hand)
        return []
    setting = runtime.settings.tools.tool_search
    lines = [f"tool search: {setting.describe()}"]
    if policy.mode == "auto":
        lines.append(
            f"  MCP schemas so far: ~{deferred.schema_tokens:,} tokens (the threshold: "
            f"~{policy.threshold_tokens:,}, {setting.percent}% of the window); "
            + ("deferring" if deferred.deferring else "offered in full")
        )
    pending = deferred.pending()
    if not pending:
        return lines
    kept = sum(estimate_spec_tokens(tool_spec(entry.tool)) for entry in pending)
    search = runtime.agent.tools.registry.get(TOOL_SEARCH_TOOL)
    listing = estimate_spec_tokens(tool_spec(search)) if search is not None else 0
    lines.append(
        f"  {len(pending)} deferred tool{'s' if len(pending) != 1 else ''} keep ~{kept:,} "
        f"tokens of schemas out of each request (tool_search and its listing cost ~{listing:,}); "
        "loading one adds its schema and rewrites the prompt cache once"
    )
    return lines
