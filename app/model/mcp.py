"""MCP server configuration: one entry of ``mcpServers``, as settings files and ``.mcp.json``
write it (the shape Claude Code, Qwen Code and Gemini CLI use).

Settings parse it (``settings/mcp_servers.py``); the MCP client (``app/mcp``) runs it. A
server named by a project file (``scope == "project"``) starts only in a trusted workspace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from lull.model import defaults

McpTransport = Literal["stdio", "http", "sse"]
"""stdio: a local process; http: streamable HTTP; sse: the legacy HTTP+SSE transport."""
MCP_TRANSPORTS: tuple[McpTransport, ...] = get_args(McpTransport)

McpScope = Literal["user", "project"]
"""Where a server was named: the user's settings, or a project file (untrusted)."""

TOOL_PREFIX = "mcp__"
"""Every MCP tool's name starts so: ``mcp__<server>__<tool>``."""


@dataclass(frozen=True, slots=True)
class McpTimeouts:
    """How long a server may take to start, and one call of one of its tools (the ``mcp.*``
    settings, or Claude Code's ``MCP_TIMEOUT`` / ``MCP_TOOL_TIMEOUT``); a server entry's own
    ``timeoutSeconds`` / ``toolTimeoutSeconds`` win."""

    start_seconds: float = defaults.MCP_TIMEOUT_SECONDS
    call_seconds: float = defaults.MCP_TOOL_TIMEOUT_SECONDS


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One MCP server: how to reach it and which of its tools to offer.

    ``include_tools`` None offers every tool (minus ``exclude_tools``); ``compactable`` lets
    idle cleanup clear this server's old results; ``always_load`` (``alwaysLoad``) offers its
    tools with their schemas whatever ``tools.toolSearch`` says (never deferred). ``source``
    is the file that named it. ``timeout_seconds`` (``timeoutSeconds``) bounds starting the
    server and ``tool_timeout_seconds`` (``toolTimeoutSeconds``) each call; None takes the
    global :class:`McpTimeouts`.
    """

    name: str
    transport: McpTransport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    enabled: bool = True
    timeout_seconds: float | None = None
    tool_timeout_seconds: float | None = None
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    compactable: bool = False
    always_load: bool = False
    scope: McpScope = "user"
    source: str = ""

    def offers(self, tool: str) -> bool:
        """Whether ``tool`` (the server's own name for it) is offered to the model."""
        if tool in self.exclude_tools:
            return False
        return self.include_tools is None or tool in self.include_tools

    def timeouts(self, fallback: McpTimeouts) -> McpTimeouts:
        """This server's start and call timeouts: its own, else ``fallback``'s."""
        return McpTimeouts(
            fallback.start_seconds if self.timeout_seconds is None else self.timeout_seconds,
            fallback.call_seconds
            if self.tool_timeout_seconds is None
            else self.tool_timeout_seconds,
        )

    def to_json(self) -> dict[str, object]:
        """The entry as a settings file writes it (``lull mcp add`` / ``get``)."""
        data: dict[str, object] = {}
        if self.transport == "stdio":
            data["command"] = self.command
            if self.args:
                data["args"] = list(self.args)
            if self.env:
                data["env"] = dict(self.env)
            if self.cwd:
                data["cwd"] = self.cwd
        else:
            if self.transport == "sse":
                data["type"] = "sse"
            data["url"] = self.url
            if self.headers:
                data["headers"] = dict(self.headers)
        if not self.enabled:
            data["enabled"] = False
        if self.timeout_seconds is not None:
            data["timeoutSeconds"] = self.timeout_seconds
        if self.tool_timeout_seconds is not None:
            data["toolTimeoutSeconds"] = self.tool_timeout_seconds
        if self.include_tools is not None:
            data["includeTools"] = list(self.include_tools)
        if self.exclude_tools:
            data["excludeTools"] = list(self.exclude_tools)
        if self.compactable:
            data["compactable"] = True
        if self.always_load:
            data["alwaysLoad"] = True
        return data
