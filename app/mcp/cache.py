"""Each MCP server's last tool listing, kept on disk so ``lull -p`` need not wait for it.

A listing (every tool's name, description, input schema and read-only hint, as the server
listed them) is saved whenever a server lists its tools, in one JSON file per server under
lull's state directory (``mcp-tools/``). The file's name is a hash of how the server is
launched: transport, command, arguments, the *names* of its environment variables and
headers (never their values: they often hold secrets), ``cwd`` and URL, and the workspace
for a project's server. A changed launch config is a different file, so a stale listing is
never read; a fresh listing that differs replaces the file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lull.mcp.listing import RemoteTool
from lull.model.mcp import McpServerConfig

log = logging.getLogger("lull.mcp")

FORMAT = 1
"""The files' format; a file of another format is not read."""


def launch_key(config: McpServerConfig, workspace: Path) -> str:
    """The hash of how ``config`` is launched (secret values left out)."""
    launch: dict[str, Any] = {
        "format": FORMAT,
        "transport": config.transport,
        "command": config.command,
        "args": list(config.args),
        "env": sorted(key for key, _ in config.env),
        "cwd": config.cwd or "",
        "url": config.url,
        "headers": sorted(key.lower() for key, _ in config.headers),
    }
    if config.scope == "project":
        launch["workspace"] = str(workspace)
    text = json.dumps(launch, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _tool_json(tool: RemoteTool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": dict(tool.input_schema),
        "readOnlyHint": tool.read_only_hint,
    }


def _tool(data: object) -> RemoteTool | None:
    if not isinstance(data, Mapping):
        return None
    name, description = data.get("name"), data.get("description", "")
    schema, hint = data.get("inputSchema"), data.get("readOnlyHint", False)
    if not isinstance(name, str) or not isinstance(description, str):
        return None
    if not isinstance(schema, Mapping) or not isinstance(hint, bool):
        return None
    return RemoteTool(name, description, schema, hint)


class ListingCache:
    """The listings kept in ``directory`` for the servers of one workspace."""

    def __init__(self, directory: Path, workspace: Path) -> None:
        self.directory = directory
        self.workspace = workspace

    def path(self, config: McpServerConfig) -> Path:
        """The file of ``config``'s listing."""
        return self.directory / f"{launch_key(config, self.workspace)}.json"

    def load(self, config: McpServerConfig) -> list[RemoteTool] | None:
        """The listing last saved for this launch config; None when there is none (or it
        cannot be read)."""
        try:
            data = json.loads(self.path(config).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            return None
        entries = data.get("tools")
        if not isinstance(entries, list):
            return None
        tools = [_tool(entry) for entry in entries]
        if any(tool is None for tool in tools):
            return None
        return [tool for tool in tools if tool is not None]

    def save(self, config: McpServerConfig, tools: Sequence[RemoteTool]) -> bool:
        """Keep ``tools`` as the listing of this launch config, unless it is already the one
        kept; returns whether the file changed. A failure to write is logged, never raised."""
        if same_listing(self.load(config), tools):
            return False
        data = {"format": FORMAT, "server": config.name, "tools": [_tool_json(t) for t in tools]}
        path = self.path(config)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, path)
        except OSError as error:
            log.warning("mcp %s: cannot keep its tool listing: %s", config.name, error)
            temporary.unlink(missing_ok=True)
            return False
        return True


def same_listing(old: Sequence[RemoteTool] | None, new: Sequence[RemoteTool]) -> bool:
    """Whether two listings offer the same tools, each the same way."""
    if old is None:
        return False
    return [_tool_json(t) for t in old] == [_tool_json(t) for t in new]
