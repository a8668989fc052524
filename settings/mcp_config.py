"""``--mcp-config FILE_OR_JSON``: MCP servers given on the command line, in Claude Code's shape.

``{"mcpServers": {"NAME": {"command": ...} | {"url": ...}}}``, as a file or as the JSON text
itself. The user typed the flag, so the servers are the user's own (scope ``user``): they
start without ``/trust``, wherever the file lies.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from lull.model.mcp import McpServerConfig
from lull.settings.checks import Invalid
from lull.settings.jsonfile import FileProblem, read_json_object
from lull.settings.mcp_servers import parse_server

MCP_SERVERS_KEY = "mcpServers"


class McpConfigError(ValueError):
    """An ``--mcp-config`` value cannot be used; the message names it and what is wrong."""


def servers_from_config(value: str, workspace: Path) -> tuple[McpServerConfig, ...]:
    """The servers of one ``--mcp-config`` value: JSON text when it starts with ``{``, else a
    file (relative to ``workspace``)."""
    text = value.strip()
    if text.startswith("{"):
        source = "--mcp-config JSON"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise McpConfigError(
                f"the JSON is not valid ({error.msg} at line {error.lineno} column {error.colno})"
            ) from None
    else:
        path = Path(text).expanduser()
        path = path if path.is_absolute() else workspace / path
        source = str(path)
        try:
            data = read_json_object(path)
        except FileProblem as problem:
            raise McpConfigError(str(problem)) from None
        if data is None:
            raise McpConfigError(f"{path}: no such file")
    if not isinstance(data, dict):
        raise McpConfigError(f"{source}: expected a JSON object with {MCP_SERVERS_KEY}")
    servers = data.get(MCP_SERVERS_KEY)
    if not isinstance(servers, dict):
        raise McpConfigError(
            f'{source}: expected {{"{MCP_SERVERS_KEY}": {{"NAME": {{"command": ...}}}}}}'
        )
    found: list[McpServerConfig] = []
    for name, entry in servers.items():
        try:
            server = parse_server(str(name), entry)
        except Invalid as problem:
            raise McpConfigError(f"{source}: expected {problem}") from None
        found.append(dataclasses.replace(server, scope="user", source=source))
    return tuple(found)
