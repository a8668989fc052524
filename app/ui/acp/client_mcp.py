"""The MCP servers an editor passes with ``session/new`` / ``session/load``, as lull's own
server entries: they start like the user's (scope ``user``, no trust needed: the user
configured them in the editor), next to the servers of lull's settings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lull.model.mcp import McpServerConfig

SOURCE = "the editor (ACP session)"


def client_servers(servers: Sequence[Any]) -> tuple[McpServerConfig, ...]:
    """lull's entries for the editor's servers (stdio, streamable HTTP, SSE); one of another
    kind (an ACP-transport server) is skipped."""
    from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

    entries: list[McpServerConfig] = []
    for server in servers:
        if isinstance(server, McpServerStdio):
            entries.append(
                McpServerConfig(
                    name=server.name,
                    command=server.command,
                    args=tuple(server.args),
                    env=tuple((variable.name, variable.value) for variable in server.env),
                    source=SOURCE,
                )
            )
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            entries.append(
                McpServerConfig(
                    name=server.name,
                    transport="http" if isinstance(server, HttpMcpServer) else "sse",
                    url=server.url,
                    headers=tuple((header.name, header.value) for header in server.headers),
                    source=SOURCE,
                )
            )
    return tuple(entries)
