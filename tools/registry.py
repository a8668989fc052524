"""The tool registry: a fixed, ordered set of tools, their specs, and safe execution.

Execution repairs known argument mistakes first (:mod:`lull.tools.repair`), validates, runs, and
tries a call again after a transient failure (:class:`lull.tools.base.TransientToolError`: 1 s,
2 s, 4 s by default) before it becomes an error result. Excluded tools (``tools.exclude``)
are never offered to the model and cannot be called. Deferred tools (:mod:`lull.tools.deferral`)
are offered by name only until loaded; a call to one loads it and runs it like any other. A
source may claim a name prefix (:meth:`ToolRegistry.claim`): a call to a name under it that is
no registered tool gets the source's stand-in (an MCP server still starting or failed says
so), not an unknown-tool answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lull.model import defaults
from lull.model.provider import ToolSpec
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput, TransientToolError
from lull.tools.builtin.edit import EditTool
from lull.tools.builtin.glob_files import GlobTool
from lull.tools.builtin.grep_search import GrepSearchTool
from lull.tools.builtin.list_directory import ListDirectoryTool
from lull.tools.builtin.note import NoteTool
from lull.tools.builtin.read_file import ReadFileTool
from lull.tools.builtin.shell import ShellTool
from lull.tools.builtin.todo_write import TodoWriteTool
from lull.tools.builtin.web_fetch import WebFetchTool
from lull.tools.builtin.write_file import WriteFileTool
from lull.tools.deferral import DeferredTools, tool_spec
from lull.tools.repair import repair_arguments
from lull.tools.validation import validate_arguments

log = logging.getLogger("lull.tools")

Sleep = Callable[[float], Awaitable[None]]
Claimant = Callable[[str], Tool | None]
"""Answers for the unregistered tool names under a claimed prefix (:meth:`ToolRegistry.claim`):
a stand-in tool, or None (no such tool)."""
RETRIES_KEY = "retries"
"""``ToolOutput.metadata`` key: how many times a transient failure made the call run again."""


def backoff_delays(retries: int) -> tuple[float, ...]:
    """The waits before each retry of a transient failure: 1 s, 2 s, 4 s, … (``retries``)."""
    return tuple(float(2**n) for n in range(max(0, retries)))


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """A call's arguments after repair, what was repaired, and its tool (None: unknown)."""

    tool: Tool | None
    arguments: Any
    repairs: tuple[str, ...] = ()


class ToolRegistry:
    """Tools by name, in registration order (the order the model sees them).

    ``repair`` turns argument repair on (``guardrails.argumentRepair``); ``retry_delays``
    are the waits before each new try after a transient failure (``guardrails.toolRetries``)
    and ``sleep`` how to wait (tests pass a recorder). ``deferred`` holds the tools a source
    registered deferred (:meth:`add_deferred`) and which of them are loaded.
    """

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        repair: bool = defaults.ARGUMENT_REPAIR,
        retry_delays: tuple[float, ...] = backoff_delays(defaults.TOOL_RETRIES),
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        self._excluded: set[str] = set()
        self.repair = repair
        self.retry_delays = retry_delays
        self.sleep = sleep
        self.deferred = DeferredTools()
        self._claims: dict[str, Claimant] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register ``tool``; a second tool with the same name is a programming error."""
        if not tool.name:
            raise ValueError(f"{type(tool).__name__} has no name")
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def replace(self, tool: Tool) -> None:
        """Put ``tool`` in place of the registered tool of its name (a built-in's variant,
        such as the shell tool offered while commands run in the sandbox)."""
        if tool.name not in self._tools:
            raise ValueError(f"no tool named {tool.name!r} to replace")
        self._tools[tool.name] = tool

    def remove(self, name: str) -> None:
        """Take the tool ``name`` away (a source's tool that is gone); unknown names are
        left alone."""
        self._tools.pop(name, None)
        self.deferred.discard(name)

    def add_deferred(self, tool: Tool, summary: str) -> None:
        """Register ``tool`` deferred: offered by name and ``summary`` (one line, in the
        ``tool_search`` tool's description) until it is loaded."""
        self.add(tool)
        self.deferred.add(tool, summary)

    def exclude(self, names: Iterable[str]) -> list[str]:
        """Never offer or run the tools ``names`` (``tools.exclude``); returns the names
        that are no tool of this registry (nothing to exclude)."""
        unknown: list[str] = []
        for name in names:
            if name in self._tools:
                self._excluded.add(name)
            else:
                unknown.append(name)
        return unknown

    @property
    def excluded(self) -> frozenset[str]:
        """The tools the model is never offered."""
        return frozenset(self._excluded)

    def claim(self, prefix: str, claimant: Claimant) -> None:
        """Names starting with ``prefix`` that are no registered tool belong to ``claimant``
        (an MCP server whose tools are not listed yet: it is starting, failed or waits for
        trust): :meth:`get` asks it for a stand-in that answers a call with why the tool
        cannot run, instead of the call being an unknown tool. Stand-ins are never offered."""
        self._claims[prefix] = claimant

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None (also for an excluded tool); an unregistered
        name under a claimed prefix gets the claimant's stand-in (the longest prefix's)."""
        if name in self._excluded:
            return None
        tool = self._tools.get(name)
        if tool is not None or not self._claims:
            return tool
        prefixes = [p for p in self._claims if name.startswith(p)]
        if not prefixes:
            return None
        return self._claims[max(prefixes, key=len)](name)

    def names(self) -> list[str]:
        """Tool names in registration order (excluded tools left out)."""
        return [name for name in self._tools if name not in self._excluded]

    def __iter__(self) -> Iterator[Tool]:
        return iter([self._tools[name] for name in self.names()])

    def __len__(self) -> int:
        return len(self.names())

    def specs(self) -> list[ToolSpec]:
        """What the model is told about each tool, in a stable order: the tools offered in
        full in registration order (``tool_search`` only once a tool is deferred), then the
        loaded deferred tools in the order they were loaded."""
        deferred = self.deferred
        offered = [
            t
            for t in self
            if t.name not in deferred and (t.name != TOOL_SEARCH_TOOL or len(deferred))
        ]
        loaded = [t for t in deferred.loaded() if t.name not in self._excluded]
        return [tool_spec(t) for t in (*offered, *loaded)]

    def is_compactable(self, name: str) -> bool:
        """True if idle cleanup may clear results of tool ``name`` (False if unknown)."""
        tool = self._tools.get(name)
        return tool is not None and tool.compactable

    def prepare(self, name: str, args: Any) -> PreparedCall:
        """The call's tool and its arguments with known mistakes repaired (when repair is on;
        an unknown tool's arguments stay as they are)."""
        tool = self.get(name)
        if tool is None or not self.repair:
            return PreparedCall(tool, args)
        repaired = repair_arguments(args, tool.parameters, tool.aliases)
        if repaired.repairs:
            log.info("repaired %s arguments: %s", name, "; ".join(repaired.repairs))
        return PreparedCall(tool, repaired.arguments, repaired.repairs)

    async def execute(self, name: str, args: Any, ctx: ToolContext) -> ToolOutput:
        """Repair, validate and run one call; every failure becomes an error output.

        Only ``asyncio.CancelledError`` propagates (after the tool cleaned up).
        """
        prepared = self.prepare(name, args)
        tool = prepared.tool
        if tool is None:
            available = ", ".join(self.names()) or "none"
            return ToolOutput(f"unknown tool {name!r}; available tools: {available}", True)
        unloaded = self.deferred.hidden(name)
        if unloaded:
            cause = f"the model called {name} before loading it (its schema joined the tools)"
            self.deferred.load([name], cause)
        problem = validate_arguments(prepared.arguments, tool.parameters)
        if problem is not None:
            if unloaded:  # the model guessed the arguments: show it the schema it needs
                schema = json.dumps(tool.parameters, ensure_ascii=False)
                problem += f". {name} was not loaded yet; its parameters: {schema}"
            return ToolOutput(f"{name}: {problem}", is_error=True)
        return await self._run(tool, prepared.arguments, ctx)

    async def _run(self, tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run ``tool``; a transient failure is tried again after each of the retry delays."""
        for attempt in range(len(self.retry_delays) + 1):
            try:
                output = await tool.run(args, ctx)
            except TransientToolError as exc:
                if attempt == len(self.retry_delays):
                    waits = ", ".join(f"{d:g} s" for d in self.retry_delays)
                    tried = f" (tried {attempt + 1} times, waiting {waits})" if attempt else ""
                    message = (str(exc) or f"{tool.name} failed") + tried
                    return ToolOutput(message, True, metadata={RETRIES_KEY: attempt})
                delay = self.retry_delays[attempt]
                log.info("%s: %s; retrying in %g s", tool.name, exc, delay)
                await self.sleep(delay)
                continue
            except ToolError as exc:
                output = ToolOutput(str(exc) or f"{tool.name} failed", is_error=True)
            except Exception as exc:
                output = ToolOutput(f"{tool.name} failed: {type(exc).__name__}: {exc}", True)
            if attempt:
                metadata = {**output.metadata, RETRIES_KEY: attempt}
                output = dataclasses.replace(output, metadata=metadata)
            return output
        raise AssertionError("unreachable: the last attempt always returns")


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
            TodoWriteTool(),
        ]
    )
