"""The tool registry: a fixed, ordered set of tools, their specs, and safe execution."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from app.model.provider import ToolSpec
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.edit import EditTool
from tools.glob_files import GlobTool
from tools.grep_search import GrepSearchTool
from tools.list_directory import ListDirectoryTool
from tools.note import NoteTool
from tools.read_file import ReadFileTool
from tools.shell import ShellTool
from tools.validation import validate_arguments
from tools.web_fetch import WebFetchTool
from tools.write_file import WriteFileTool


class ToolRegistry:
    """Tools by name, in registration order (the order the model sees them)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register ``tool``; a second tool with the same name is a programming error."""
        if not tool.name:
            raise ValueError(f"{type(tool).__name__} has no name")
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self) -> list[ToolSpec]:
        """What the model is told about each tool, in a stable order."""
        return [ToolSpec(t.name, t.description, t.parameters) for t in self._tools.values()]

    def is_compactable(self, name: str) -> bool:
        """True if idle cleanup may clear results of tool ``name`` (False if unknown)."""
        tool = self._tools.get(name)
        return tool is not None and tool.compactable

    async def execute(self, name: str, args: Any, ctx: ToolContext) -> ToolOutput:
        """Validate and run one call; every failure becomes an error output.

        Only ``asyncio.CancelledError`` propagates (after the tool cleaned up).
        """
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return ToolOutput(f"unknown tool {name!r}; available tools: {available}", True)
        problem = validate_arguments(args, tool.parameters)
        if problem is not None:
            return ToolOutput(f"{name}: {problem}", is_error=True)
        call_args: Mapping[str, Any] = args
        try:
            return await tool.run(call_args, ctx)
        except ToolError as exc:
            return ToolOutput(str(exc) or f"{name} failed", is_error=True)
        except Exception as exc:
            return ToolOutput(f"{name} failed: {type(exc).__name__}: {exc}", is_error=True)


def default_registry() -> ToolRegistry:
    """A registry with all built-in tools, in the order the model sees them."""
    return ToolRegistry(
        [
            ReadFileTool(),
            WriteFileTool(),
            EditTool(),
            ShellTool(),
            GrepSearchTool(),
            GlobTool(),
            ListDirectoryTool(),
            WebFetchTool(),
            NoteTool(),
        ]
    )
