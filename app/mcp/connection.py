"""One MCP server: started on first need, its tools listed once, calls made, restarted after
a failure.

A connection is held by one background task (:meth:`McpConnection._hold`) that enters the
SDK's transport and :class:`mcp.ClientSession` and stays inside them until the connection is
dropped, so the SDK's task groups are entered and left in the same task; calls are made from
the tool runner's tasks on the same event loop. A server that does not start within its
start timeout (``timeoutSeconds``, ``mcp.startTimeoutSeconds``, ``MCP_TIMEOUT``) or dies
becomes an :class:`McpFailure` with the tail of its stderr; the connection is dropped and the
next use starts it again. A call the server answers with a JSON-RPC error, or that takes
longer than the call timeout (``toolTimeoutSeconds``, ``mcp.toolTimeoutSeconds``,
``MCP_TOOL_TIMEOUT``; the SDK then sends ``notifications/cancelled``), is an
:class:`McpCallError` for that call only: the server, its state and its other calls in flight
are left alone.
Every line a stdio server writes to stderr goes to the debug log (``lull.mcp``).

The SDK is imported only here, and only when a server starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from lull.mcp.launch import with_parent_death_signal
from lull.mcp.listing import ListingGuard, RemoteTool, SkippedTool, list_tools
from lull.model.mcp import McpServerConfig, McpTimeouts
from lull.tools.confinement import CommandSandbox

log = logging.getLogger("lull.mcp")

ServerState = Literal["stopped", "starting", "ready", "failed"]
STDERR_LINES = 20
STDERR_LINE_CHARS = 400  # a longer line is cut: the tail stays small whatever a server writes
_STDERR_BUFFER = 64 * 1024  # bytes without a newline that are taken as one (cut) line
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_READ_SECONDS = 300.0
_CONNECTION_CLOSED = -32000  # the SDK's code for a call whose connection ended (mcp.types)
_REQUEST_TIMEOUT = -32001  # the SDK's code for a call past its read timeout
_CALL_GRACE_SECONDS = 5.0  # past a call's timeout, in case the SDK's own timeout never fires


class McpFailure(Exception):
    """The server could not be reached, crashed or timed out; the message is one line (plus
    the server's stderr tail when it has one)."""


class McpCallError(Exception):
    """One call failed while its server stays up: the server answered it with a JSON-RPC
    error (its message is kept), or it timed out and was cancelled. Only that call gets an
    error result."""


def expand(text: str, env: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}`` replaced from ``env`` (as Claude Code's .mcp.json)."""
    return _VARIABLE.sub(lambda m: env.get(m.group(1), m.group(2) or ""), text)


class StderrTail:
    """The last lines a server wrote to stderr; each line is also logged at debug level."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.lines: deque[str] = deque(maxlen=STDERR_LINES)

    def add(self, line: str) -> None:
        """Keep and log one line (cut to :data:`STDERR_LINE_CHARS`)."""
        line = line.rstrip("\r\n")
        if len(line) > STDERR_LINE_CHARS:
            line = line[: STDERR_LINE_CHARS - 1] + "…"
        if line.strip():
            self.lines.append(line)
            log.debug("mcp %s stderr: %s", self.server, line)

    def text(self) -> str:
        """The kept lines, for an error result ("" when there are none)."""
        return "\n".join(self.lines)

    def last(self, count: int) -> tuple[str, ...]:
        """The last ``count`` lines."""
        return tuple(self.lines)[-count:] if count > 0 else ()


class _StderrProtocol(asyncio.Protocol):
    """Reads a server's stderr pipe line by line into a :class:`StderrTail`."""

    def __init__(self, tail: StderrTail) -> None:
        self.tail = tail
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > _STDERR_BUFFER:  # no newline for a long while: take it as a line
            lines.append(self.buffer[: STDERR_LINE_CHARS * 4])
            self.buffer = b""
        for line in lines:
            self.tail.add(line.decode("utf-8", "replace"))

    def eof_received(self) -> bool | None:
        if self.buffer:
            self.tail.add(self.buffer.decode("utf-8", "replace"))
            self.buffer = b""
        return None


class McpConnection:
    """A server, its state and last error, and the calls to its tools."""

    def __init__(
        self,
        config: McpServerConfig,
        workspace: Path,
        env: Mapping[str, str] | None = None,
        timeouts: McpTimeouts | None = None,
        sandbox: CommandSandbox | None = None,
    ) -> None:
        self.config = config
        self.sandbox = sandbox
        """The OS sandbox a stdio server runs in (None: as it is)."""
        self.default_timeouts = timeouts or McpTimeouts()
        self.workspace = workspace
        self.env = dict(os.environ if env is None else env)
        self.state: ServerState = "stopped"
        self.last_error = ""
        self.tools: list[RemoteTool] | None = None
        self.skipped: list[SkippedTool] = []
        """Tools of the first listing left out for a schema the protocol or JSON Schema
        refuses."""
        self.stderr = StderrTail(config.name)
        self.starts = 0
        self._session: Any = None
        self._holder: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._ready: asyncio.Future[None] | None = None
        self._lock: asyncio.Lock | None = None

    @property
    def name(self) -> str:
        """The server's name in the settings."""
        return self.config.name

    @property
    def start_timeout(self) -> float:
        """Seconds the server may take to start and list its tools."""
        return self.config.timeouts(self.default_timeouts).start_seconds

    @property
    def call_timeout(self) -> float:
        """Seconds one call may take before it is cancelled."""
        return self.config.timeouts(self.default_timeouts).call_seconds

    # --- starting ---------------------------------------------------------------------

    async def connect(self) -> Any:
        """The live session, starting the server first if it is not running; raises
        :class:`McpFailure` when it cannot start within its timeout."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._session is not None and self._holder is not None and not self._holder.done():
                return self._session
            await self._drop()
            return await self._start()

    async def _start(self) -> Any:
        self.state = "starting"
        self.starts += 1
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        stop = asyncio.Event()
        self._ready, self._stop = ready, stop
        self._holder = asyncio.create_task(self._hold(ready, stop), name=f"mcp {self.name}")
        timeout = self.start_timeout
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except TimeoutError:
            await self._drop()
            reason = f"no answer within {timeout:g} s of its start (timeoutSeconds, MCP_TIMEOUT)"
            raise self._failed(reason) from None
        except McpFailure as failure:
            await self._drop()
            raise self._failed(str(failure)) from None
        self.state, self.last_error = "ready", ""
        log.info("mcp %s: ready with %d tools", self.name, len(self.tools or ()))
        return self._session

    async def _hold(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """Enter the transport and the session, list the tools, then wait for the stop."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                guard = ListingGuard()
                session = await self._open(stack, guard)
                skipped = guard.skipped
                listed = await list_tools(session, skipped)
                if self.tools is None:
                    self.tools = listed  # the first listing is kept: the prefix never changes
                    self.skipped = skipped
                self._session = session
                if not ready.done():
                    ready.set_result(None)
                await stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(McpFailure("stopped while starting"))
            raise
        except BaseException as error:  # SDK failures arrive as exception groups
            reason = describe_error(error)
            log.warning("mcp %s: connection ended: %s", self.name, reason)
            if not ready.done():
                if connection_lost(error) and not isinstance(_innermost(error), OSError):
                    reason = self._ended_while_starting()
                ready.set_exception(McpFailure(reason))
            else:
                self.state, self.last_error = "failed", reason
        finally:
            self._session = None

    async def _open(self, stack: contextlib.AsyncExitStack, guard: ListingGuard) -> Any:
        """The transport for the configured kind, and an initialized session over it (its
        messages pass ``guard``, which keeps a bad tool from failing the whole listing)."""
        from mcp import ClientSession

        streams = await stack.enter_async_context(self._transport(stack))
        read, write = guard.reading(streams[0]), guard.writing(streams[1])
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        return session

    def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        config = self.config
        headers = {key: expand(value, self.env) for key, value in config.headers}
        match config.transport:
            case "stdio":
                return self._stdio(stack)
            case "http":
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                read = max(_HTTP_READ_SECONDS, self.call_timeout + _CALL_GRACE_SECONDS)
                client = httpx2.AsyncClient(
                    headers=headers, timeout=httpx2.Timeout(self.start_timeout, read=read)
                )
                stack.push_async_callback(client.aclose)
                return streamable_http_client(expand(config.url, self.env), http_client=client)
            case "sse":
                from mcp.client.sse import sse_client

                return sse_client(
                    expand(config.url, self.env),
                    headers=headers,
                    timeout=self.start_timeout,
                    sse_read_timeout=max(_HTTP_READ_SECONDS, self.call_timeout),
                )

    @contextlib.asynccontextmanager
    async def _stdio(self, stack: contextlib.AsyncExitStack) -> Any:
        """The stdio transport, its stderr read from a pipe into :attr:`stderr`; the server
        ends when lull does (:mod:`lull.mcp.launch`)."""
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        config = self.config
        env = {key: expand(value, self.env) for key, value in config.env} or None
        cwd = self._cwd()
        argv = [expand(config.command, self.env), *(expand(arg, self.env) for arg in config.args)]
        if self.sandbox is not None:
            from mcp.client.stdio import get_default_environment

            inside = {**get_default_environment(), **(env or {})}
            confined = await stack.enter_async_context(self.sandbox.confine(argv, inside, cwd))
            argv, env = list(confined.argv), dict(confined.env)
        command, args = with_parent_death_signal(argv[0], argv[1:], env, cwd)
        params = StdioServerParameters(
            command=command, args=args, env=env, cwd=cwd, encoding_error_handler="replace"
        )
        read_fd, write_fd = os.pipe()
        reader = os.fdopen(read_fd, "rb", buffering=0)
        errlog = os.fdopen(write_fd, "w")
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_read_pipe(lambda: _StderrProtocol(self.stderr), reader)
        try:
            async with stdio_client(params, errlog=errlog) as streams:
                errlog.close()  # the server has its own copy
                yield streams
        finally:
            errlog.close()
            await asyncio.sleep(0)  # let the last stderr bytes arrive
            transport.close()

    def _ended_while_starting(self) -> str:
        """Why a connection ended before the server answered (its stderr says the rest)."""
        if self.config.transport == "stdio":
            return "it exited (or closed its output) before it answered"
        return "the connection closed before the server answered"

    def _cwd(self) -> Path:
        cwd = self.config.cwd
        if not cwd:
            return self.workspace
        path = Path(expand(cwd, self.env)).expanduser()
        return path if path.is_absolute() else self.workspace / path

    # --- calling ----------------------------------------------------------------------

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> Any:
        """Call ``tool`` and return the SDK's ``CallToolResult``.

        Raises :class:`McpCallError` when the server answered this call with a JSON-RPC error
        or the call took longer than :attr:`call_timeout` (the SDK sends the server
        ``notifications/cancelled``); the server keeps running, with its state and its other
        calls. Raises :class:`McpFailure` when the server cannot be started or the connection
        ended (it is dropped, so the next call starts it again)."""
        session = await self.connect()
        generation = self.starts
        timeout = self.call_timeout
        cancelled = McpCallError(
            f"MCP server {self.name}: {tool}: no answer within {timeout:g} s "
            "(toolTimeoutSeconds); the call was cancelled, the server keeps running"
        )
        try:
            return await asyncio.wait_for(
                session.call_tool(tool, dict(arguments), read_timeout_seconds=timeout),
                timeout + _CALL_GRACE_SECONDS,
            )
        except asyncio.CancelledError:
            raise
        except TimeoutError:  # the SDK did not end it: cancelling the call told the server
            raise cancelled from None
        except Exception as error:
            if getattr(error, "code", None) == _REQUEST_TIMEOUT:
                raise cancelled from None
            holder = self._holder
            ended = holder is None or holder.done()  # the connection ended under the call
            if not connection_lost(error) and not ended:
                raise self._call_error(tool, error) from None
            reason = describe_error(error)
        if generation == self.starts:  # not restarted meanwhile by a sibling call
            await self._drop()
        raise self._failed(reason)

    def _call_error(self, tool: str, error: BaseException) -> McpCallError:
        """One call's error answer, in a line for the model (the server is left running)."""
        code = getattr(error, "code", None)
        message = getattr(error, "message", None) or describe_error(error)
        number = f" ({code})" if isinstance(code, int) else ""
        log.info("mcp %s: %s answered with an error%s: %s", self.name, tool, number, message)
        return McpCallError(
            f"MCP server {self.name}: {tool} answered with an error{number}: {message}"
        )

    def _failed(self, reason: str) -> McpFailure:
        """Record ``reason`` as the last error; the failure carries the stderr tail."""
        self.state, self.last_error = "failed", reason
        tail = self.stderr.text()
        message = f"MCP server {self.name}: {reason}"
        if tail:
            message += f"\nserver stderr (last lines):\n{tail}"
        return McpFailure(message)

    async def _drop(self) -> None:
        """Leave the session and stop the server (if any), waiting for the holder to end."""
        holder, stop = self._holder, self._stop
        self._holder = self._stop = self._ready = None
        self._session = None
        if holder is None:
            return
        if stop is not None:
            stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(holder), 5)
        except (TimeoutError, Exception):
            holder.cancel()
            await asyncio.gather(holder, return_exceptions=True)

    async def close(self) -> None:
        """Stop the server for good (lull is leaving)."""
        await self._drop()
        if self.state != "failed":
            self.state = "stopped"


def _innermost(error: BaseException) -> BaseException:
    """The first real exception inside exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def connection_lost(error: BaseException) -> bool:
    """Whether a call's exception says the connection to the server ended (the SDK wakes
    every waiting call with ``Connection closed`` when the transport closes), rather than
    that the server answered the call with an error."""
    error = _innermost(error)
    if isinstance(error, OSError | EOFError):
        return True
    code = getattr(error, "code", None)
    message = str(getattr(error, "message", ""))
    if code == _CONNECTION_CLOSED and message == "Connection closed":
        return True
    return type(error).__name__ in {"ClosedResourceError", "BrokenResourceError", "EndOfStream"}


def describe_error(error: BaseException) -> str:
    """One line for an exception, the first real one inside exception groups."""
    error = _innermost(error)
    text = " ".join(str(error).split())
    if isinstance(error, FileNotFoundError):
        return f"command not found: {error.filename or text}"
    if isinstance(error, OSError) and not text:
        return type(error).__name__
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
