"""One MCP tool as a lull tool: ``mcp__<server>__<tool>`` with the server's (adapted) schema.

Calls go to the server's :class:`~lull.mcp.connection.McpConnection`; a failure of the server
(it cannot start, crashed, hung past its timeout) is an error result with the server's stderr
tail, and a JSON-RPC error answer is an error result with the server's message (that call
only: the server keeps running), never an exception in the turn loop. MCP tools are not
``read_only`` (``default`` mode asks before each call, "allow always" covers one tool for the
session); a tool its server annotates ``readOnlyHint`` may run in ``plan`` mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from lull.mcp.connection import McpCallError, McpConnection, McpFailure
from lull.mcp.listing import RemoteTool
from lull.mcp.results import convert_result
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput

DESCRIPTION_CHARS = 2048


class McpTool(Tool):
    """A tool of an MCP server."""

    def __init__(
        self,
        connection: McpConnection,
        remote: RemoteTool,
        name: str,
        parameters: Mapping[str, Any],
        *,
        compactable: bool = False,
    ) -> None:
        self.connection = connection
        self.remote = remote
        self.name = name
        description = remote.description.strip() or f"{remote.name} (no description)"
        if len(description) > DESCRIPTION_CHARS:
            description = description[: DESCRIPTION_CHARS - 1] + "…"
        self.description = f"[MCP server {connection.name}] {description}"
        self.parameters = parameters
        self.read_only_hint = remote.read_only_hint
        self.compactable = compactable
        self.ready: Callable[[], Awaitable[str | None]] | None = None
        """Awaited before a call when the tool was registered before its server came up
        (``lull -p`` with a kept listing): None once the server is up, else why not."""

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Call the server's tool; a server failure is a :class:`ToolError` (one clear line and
        the server's stderr tail)."""
        if self.ready is not None and (why := await self.ready()) is not None:
            raise ToolError(why)
        try:
            result = await self.connection.call(self.remote.name, args)
        except (McpFailure, McpCallError) as failure:
            raise ToolError(str(failure)) from None
        return convert_result(result, f"{self.name}'s result", ctx)

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The first short argument, else the server's name for the tool."""
        for value in args.values():
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                text = str(value)
                return text if len(text) <= 80 else text[:79] + "…"
        return f"{self.connection.name}: {self.remote.name}"


class UnavailableTool(Tool):
    """Stands in for a tool of a server that is not up (still starting, failed, waiting for
    /trust): a call gets an error result saying why, instead of being rolled back as a call
    to an unknown tool. It changes nothing, so it runs in every mode without asking."""

    read_only = True
    parameters: Mapping[str, Any] = {"type": "object"}

    def __init__(self, name: str, why: Callable[[], Awaitable[str]]) -> None:
        self.name = name
        self.description = f"{name} (its MCP server is not up)"
        self._why = why

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Why the tool cannot run, as an error."""
        raise ToolError(await self._why())
