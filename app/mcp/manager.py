"""All configured MCP servers: which may start, starting them in the background, their tools
in the registry, and their status for ``/mcp``.

A server from the user's settings starts when the front end calls :meth:`McpManager.start`
(after the prompt is on screen). One named by a project file (``.lull/settings.json``,
``.mcp.json``) runs code from a cloned repository, so it starts only when the workspace is
trusted (``/trust``, which takes effect at once through :meth:`McpManager.trust_changed`) or
the command line said ``--allow-project-mcp``. A server that comes up registers its tools once,
after the tools already offered (an expected prompt-cache break, announced in
:attr:`McpManager.added_tools`); ``lull -p`` (``wait=True``) waits for the servers before the
first request instead, and registers them in the settings' order. Where ``tools.toolSearch``
says so, a server's tools are registered deferred (:mod:`lull.tools.deferral`): the
``tool_search`` tool lists them by name and loads their schemas on demand.

Every listing a server gives is kept (:mod:`lull.mcp.cache`). ``lull -p`` does not wait for a
server whose listing is kept when its tools would be deferred anyway (not ``alwaysLoad``, and
``tools.toolSearch`` defers the batch): its kept tools are registered deferred at once, the
server starts in the background once the first request is out (:meth:`request_sent`; before
it, starting servers would compete with lull for the CPU), and a call to one of its tools
starts it if need be and waits for it (at most its start timeout), or is an error result
saying it did not start. A fresh listing that
differs from the kept one replaces the file, and this run's tools of that server at the next
user turn (never within a turn: the tools lead every request's cached prefix).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, assert_never

from lull.mcp.cache import ListingCache, same_listing
from lull.mcp.connection import McpConnection, McpFailure
from lull.mcp.listing import RemoteTool
from lull.mcp.naming import adapt_schema, tool_name, tool_prefix
from lull.mcp.tool import McpTool, UnavailableTool
from lull.model.events import Notice
from lull.model.mcp import TOOL_PREFIX, McpScope, McpServerConfig, McpTimeouts, McpTransport
from lull.model.tool_search import TOOL_SEARCH_TOOL
from lull.tools.base import Tool
from lull.tools.confinement import CommandSandbox
from lull.tools.deferral import one_line, tool_spec
from lull.tools.registry import ToolRegistry

log = logging.getLogger("lull.mcp")

StatusWord = Literal["stopped", "starting", "ready", "failed", "disabled", "needs trust"]
NOTICE_STDERR_LINES = 3
"""How many of a server's last stderr lines a start failure's notice quotes (/mcp shows more)."""
STATUS_STDERR_LINES = 10
"""How many of them ``/mcp`` shows."""


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """What ``/mcp`` shows about one server."""

    name: str
    scope: McpScope
    transport: McpTransport
    state: StatusWord
    tools: int
    last_error: str
    source: str
    starts: int
    stderr: tuple[str, ...] = ()
    """The last lines the server wrote to stderr (stdio servers)."""


class McpManager:
    """The MCP servers of one run (a :class:`lull.tools.sources.ToolSource`).

    ``provider`` is the API family the schemas are adapted for; ``trusted`` says whether the
    workspace is trusted now; ``allow_project`` is ``--allow-project-mcp``; ``timeouts`` are
    the start and call timeouts of servers whose entries name none (``mcp.*``).
    """

    def __init__(
        self,
        servers: tuple[McpServerConfig, ...],
        registry: ToolRegistry,
        workspace: Path,
        provider: str,
        *,
        trusted: Callable[[], bool],
        allow_project: bool = False,
        env: Mapping[str, str] | None = None,
        timeouts: McpTimeouts | None = None,
        sandbox: CommandSandbox | None = None,
        listings: ListingCache | None = None,
    ) -> None:
        self.registry = registry
        self.listings = listings
        """Where each server's last listing is kept (None: nowhere)."""
        self.provider = provider
        self.trusted = trusted
        self.allow_project = allow_project
        self.wait = False
        self.connections = [
            McpConnection(s, workspace, env, timeouts, _sandbox_for(s, sandbox)) for s in servers
        ]
        self.added_tools: dict[str, str] = {}
        self._registered: set[str] = set()
        self._early: dict[str, list[RemoteTool]] = {}
        """Servers whose kept listing was registered before they came up (``-p``)."""
        self._changed: set[str] = set()
        """Of those, the ones whose fresh listing differs (applied at the next turn)."""
        self._settled = False
        self._kept: dict[str, list[RemoteTool]] | None = None
        """The kept listings of the servers ``-p`` may not wait for (None: not looked yet)."""
        self._go = asyncio.Event()
        """Set once those servers may start: the first request is out, or a tool needs one."""
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._notices: list[Notice] = []
        self.listener: Callable[[Notice], None] | None = None
        for connection in self.connections:
            if connection.config.enabled:
                registry.claim(tool_prefix(connection.name), self._stand_in)

    # --- which servers ------------------------------------------------------------------

    def may_start(self, connection: McpConnection) -> bool:
        """Enabled, and from the user's settings or a trusted (or allowed) project."""
        config = connection.config
        if not config.enabled:
            return False
        return config.scope == "user" or self.allow_project or self.trusted()

    def waiting_for_trust(self) -> list[str]:
        """The enabled project servers that wait for ``/trust``."""
        return [
            c.name
            for c in self.connections
            if c.config.enabled and c.config.scope == "project" and not self.may_start(c)
        ]

    # --- ToolSource -----------------------------------------------------------------------

    def start(self) -> None:
        """Start every server that may start and is not started yet, in the background."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.wait and self._kept is None:
            self._kept = self._kept_listings()
        for connection in self.connections:
            if connection.name not in self._tasks and self.may_start(connection):
                connection.state = "starting"
                task = asyncio.create_task(self._bring_up(connection))
                self._tasks[connection.name] = task

    async def settle(self) -> None:
        """With ``wait`` (``lull -p``): wait until every started server is up or failed, then
        register their tools in the settings' order; otherwise return at once. A server whose
        kept listing is registered instead (see the module's docstring) is not waited for."""
        if not self.wait or not self._tasks:
            return
        if not self._settled:
            self._settled = True
            if await self._register_early():
                return
        waited = [task for name, task in self._tasks.items() if name not in self._early]
        await asyncio.gather(*waited, return_exceptions=True)
        self._register(self.connections)

    async def _register_early(self) -> bool:
        """The first settle of ``lull -p``: when the servers with a kept listing would have
        their tools deferred, wait for the others only and register every server's tools
        (the kept listings for the first); returns whether it did."""
        kept = self._kept or {}
        if not kept:
            return False
        waited = [task for name, task in self._tasks.items() if name not in kept]
        await asyncio.gather(*waited, return_exceptions=True)
        batch = self._batch(self.connections, kept)
        defer = self._decide(batch)
        if not defer:  # their tools would be offered in full: wait for them as before
            self._go.set()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
            self._place(self._batch(self.connections, {}), defer)
            return True
        self._early = kept
        for connection in self.connections:
            if connection.name in kept and connection.tools is not None:
                self._remember(connection)  # it came up meanwhile: its listing is compared
        self._place(batch, defer)
        return True

    def _kept_listings(self) -> dict[str, list[RemoteTool]]:
        """The kept listings of the servers that may start and need not be waited for: tool
        search may defer, the server is not ``alwaysLoad``, and a listing is kept."""
        policy = self.registry.deferred.policy
        if self.listings is None or policy is None or policy.mode == "off":
            return {}
        kept: dict[str, list[RemoteTool]] = {}
        for connection in self.connections:
            if not self.may_start(connection) or connection.config.always_load:
                continue
            listing = self.listings.load(connection.config)
            if listing is not None:
                kept[connection.name] = listing
        return kept

    def request_sent(self) -> None:
        """The first request is out: the servers ``-p`` did not wait for start now (before
        it, their start would compete with lull's own for the CPU)."""
        self._go.set()

    def begin_turn(self) -> None:
        """A user turn begins: servers registered from a kept listing whose fresh listing
        differs get their fresh tools now (the tool list stays the same within a turn)."""
        for connection in self.connections:
            if connection.name in self._changed:
                self._refresh(connection)
        self._changed.clear()

    def take_notices(self) -> list[Notice]:
        """What the user should hear since the last call: servers that did not start, tools
        left out for a bad schema (each said once)."""
        notices, self._notices = self._notices, []
        return notices

    def listen(self, listener: Callable[[Notice], None]) -> None:
        """Say notices to ``listener`` as they happen (a front end idle at its prompt shows a
        server that failed to start at once), including those not taken yet."""
        self.listener = listener
        for notice in self.take_notices():
            listener(notice)

    def _say(self, notice: Notice) -> None:
        if self.listener is None:
            self._notices.append(notice)
        else:
            self.listener(notice)

    async def aclose(self) -> None:
        """Stop every server and background start."""
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)

    def trust_changed(self) -> list[str]:
        """The workspace was trusted: start its project servers now; returns their names."""
        waiting = [
            c.name for c in self.connections if c.config.scope == "project" and c.config.enabled
        ]
        self.start()
        return [name for name in waiting if name in self._tasks]

    # --- starting ---------------------------------------------------------------------------

    async def _bring_up(self, connection: McpConnection) -> None:
        if self._kept and connection.name in self._kept:
            await self._go.wait()
        try:
            await connection.connect()
        except McpFailure as failure:
            log.warning("%s", str(failure).splitlines()[0])
            self._say(Notice("warning", self._start_failure(connection)))
            return
        for skipped in connection.skipped:
            text = f"MCP server {connection.name}: tool {skipped.name} skipped: {skipped.reason}"
            log.warning("%s", text)
            self._say(Notice("warning", text))
        self._remember(connection)
        if not self.wait:
            self._register([connection])

    def _remember(self, connection: McpConnection) -> None:
        """Keep the server's fresh listing; one that differs from the kept listing its tools
        were registered from is applied at the next turn (:meth:`begin_turn`)."""
        listing = connection.tools
        if listing is None:
            return
        if self.listings is not None:
            self.listings.save(connection.config, listing)
        early = self._early.get(connection.name)
        if early is not None and not same_listing(early, listing):
            log.info("mcp %s: its tools changed since they were kept", connection.name)
            self._changed.add(connection.name)

    def _start_failure(self, connection: McpConnection) -> str:
        """The notice of a server that did not start: why, and its last stderr lines."""
        text = f"MCP server {connection.name} did not start: {connection.last_error}"
        tail = connection.stderr.last(NOTICE_STDERR_LINES)
        if tail:
            text += f"; its stderr ends: {' | '.join(tail)}"
        return text + " (/mcp shows it)"

    # --- calls to tools of servers that are not up -----------------------------------------

    def _owner(self, name: str) -> McpConnection | None:
        """The enabled server whose tool ``name`` would be (the longest prefix)."""
        owners = [
            c for c in self.connections if c.config.enabled and name.startswith(tool_prefix(c.name))
        ]
        return max(owners, key=lambda c: len(c.name), default=None)

    def _stand_in(self, name: str) -> Tool | None:
        """What answers a call to ``name``, a tool of a server whose tools are not listed
        (starting, failed, waiting for trust); None once the server is up (its listing says
        which tools there are)."""
        connection = self._owner(name)
        if connection is None or self._status_word(connection) in ("ready", "disabled"):
            return None
        return UnavailableTool(name, lambda: self.unavailable(connection, name))

    async def unavailable(self, connection: McpConnection, name: str) -> str:
        """Why ``name`` of ``connection`` cannot run (the result of a call to it). A server
        still starting is waited for (at most its start timeout) first."""
        task = self._tasks.get(connection.name)
        started = connection.state == "starting" and task is not None and not task.done()
        if started and task is not None:
            await asyncio.wait({task}, timeout=connection.start_timeout + 1)
        state = self._status_word(connection)
        match state:
            case "needs trust":
                return (
                    f"MCP server {connection.name} is named by this project's files and waits "
                    f"for /trust (or --allow-project-mcp); {name} cannot run until the user "
                    "trusts the workspace"
                )
            case "ready" | "disabled":
                if self.registry.get(name) is None:
                    return f"MCP server {connection.name} has no tool {name}"
                return (
                    f"MCP server {connection.name} was still starting when {name} was called; "
                    f"it is ready now: call {name} again"
                )
            case "starting":
                return (
                    f"MCP server {connection.name} is still starting; {name} is not available "
                    "yet: call it again in a moment"
                )
            case "failed" | "stopped":
                text = f"MCP server {connection.name} did not start, so {name} cannot run"
                if connection.last_error:
                    text += f": {connection.last_error}"
                if tail := connection.stderr.text():
                    text += f"\nserver stderr (last lines):\n{tail}"
                return text
            case _:
                assert_never(state)

    def _started(self, connection: McpConnection, name: str) -> Callable[[], Awaitable[str | None]]:
        """What ``name``, registered from a kept listing, awaits before its call: its
        server's background start (at most its start timeout); an error text when the
        server did not come up, else None."""

        async def started() -> str | None:
            self._go.set()
            task = self._tasks.get(connection.name)
            if connection.tools is None and task is not None and not task.done():
                await asyncio.wait({task}, timeout=connection.start_timeout + 1)
            if connection.tools is not None:  # it came up (a later failure restarts it)
                return None
            return await self.unavailable(connection, name)

        return started

    def _register(self, connections: list[McpConnection]) -> None:
        """Add the servers' offered tools to the registry, once each, after the existing
        ones: deferred (offered by name through ``tool_search`` until loaded) when the
        registry's policy says so for this batch, never for a server with ``alwaysLoad``."""
        batch = self._batch(connections, {})
        self._place(batch, self._decide(batch))

    def _batch(
        self, connections: list[McpConnection], kept: dict[str, list[RemoteTool]]
    ) -> list[tuple[McpConnection, list[McpTool]]]:
        """The tools of each server not registered yet that has a listing (``kept``'s, else
        its own)."""
        taken = set(self.registry.names())
        batch: list[tuple[McpConnection, list[McpTool]]] = []
        for connection in connections:
            listing = kept.get(connection.name, connection.tools)
            if connection.name in self._registered or listing is None:
                continue
            tools = self._tools_of(connection, listing, taken)
            if connection.name in kept:
                for tool in tools:
                    tool.ready = self._started(connection, tool.name)
            batch.append((connection, tools))
        return batch

    def _decide(self, batch: list[tuple[McpConnection, list[McpTool]]]) -> bool:
        """Whether the batch's tools (but ``alwaysLoad`` servers') are deferred."""
        deferrable = [
            tool_spec(tool)
            for connection, tools in batch
            if not connection.config.always_load
            for tool in tools
        ]
        return bool(deferrable) and self.registry.deferred.decide(deferrable)

    def _place(self, batch: list[tuple[McpConnection, list[McpTool]]], defer: bool) -> None:
        """Register the batch's tools, deferred or in full."""
        for connection, tools in batch:
            self._registered.add(connection.name)
            if defer and not connection.config.always_load:
                for tool in tools:
                    self.registry.add_deferred(tool, _summary(tool))
                if tools:
                    self.added_tools[TOOL_SEARCH_TOOL] = (
                        f"MCP server {connection.name} came up and tool_search lists its "
                        "deferred tools"
                    )
                continue
            cause = f"MCP server {connection.name} came up and added its tools"
            for tool in tools:
                self.registry.add(tool)
                self.added_tools[tool.name] = cause

    def _refresh(self, connection: McpConnection) -> None:
        """Put the server's fresh listing in place of the kept one its tools were deferred
        from: changed tools replaced, new ones deferred, vanished ones removed."""
        old = {
            tool.name: tool
            for tool in self.registry
            if isinstance(tool, McpTool) and tool.connection is connection
        }
        taken = set(self.registry.names()) - set(old)
        fresh = self._tools_of(connection, connection.tools or [], taken)
        cause = f"MCP server {connection.name} lists other tools than it did before"
        deferred = self.registry.deferred
        for tool in fresh:
            previous = old.pop(tool.name, None)
            if previous is None:
                self.registry.add_deferred(tool, _summary(tool))
            else:
                self.registry.replace(tool)
                deferred.add(tool, _summary(tool))
                if tool.name in deferred.loaded_names:
                    self.added_tools[tool.name] = cause
        for name in old:
            self.registry.remove(name)
        self.added_tools[TOOL_SEARCH_TOOL] = cause

    def _tools_of(
        self, connection: McpConnection, listing: list[RemoteTool], taken: set[str]
    ) -> list[McpTool]:
        """The offered tools of ``listing`` as lull tools (their names join ``taken``)."""
        config = connection.config
        tools: list[McpTool] = []
        for remote in listing:
            if not config.offers(remote.name):
                continue
            name = tool_name(connection.name, remote.name, taken)
            schema = adapt_schema(remote.input_schema, self.provider)
            tools.append(McpTool(connection, remote, name, schema, compactable=config.compactable))
        return tools

    # --- status -----------------------------------------------------------------------------

    def statuses(self) -> list[ServerStatus]:
        """Every configured server, in the settings' order."""
        return [self._status(c) for c in self.connections]

    def _status_word(self, connection: McpConnection) -> StatusWord:
        if not connection.config.enabled:
            return "disabled"
        if not self.may_start(connection):
            return "needs trust"
        return connection.state

    def _status(self, connection: McpConnection) -> ServerStatus:
        config = connection.config
        state = self._status_word(connection)
        prefix = f"{TOOL_PREFIX}{connection.name}__"
        tools = sum(1 for name in self.registry.names() if name.startswith(prefix))
        if not tools and connection.tools is not None:
            tools = sum(1 for t in connection.tools if config.offers(t.name))
        return ServerStatus(
            config.name,
            config.scope,
            config.transport,
            state,
            tools,
            connection.last_error,
            config.source,
            connection.starts,
            connection.stderr.last(STATUS_STDERR_LINES),
        )

    def compactable_patterns(self) -> frozenset[str]:
        """``mcp__<server>__*`` for every server whose results idle cleanup may clear."""
        return frozenset(
            f"{TOOL_PREFIX}{c.name}__*" for c in self.connections if c.config.compactable
        )


def _summary(tool: McpTool) -> str:
    """The one line a deferred MCP tool is listed with."""
    return one_line(tool.remote.description) or "(no description)"


def _sandbox_for(config: McpServerConfig, sandbox: CommandSandbox | None) -> CommandSandbox | None:
    """The sandbox a server runs in: the project's stdio servers, where the user turned it on
    (``sandbox.mcpServers``); the user's own servers and remote ones run as they are."""
    if config.scope == "project" and config.transport == "stdio":
        return sandbox
    return None
