"""An editor for the tests: the SDK's own client side, talking to a real ``lull acp`` process
over its pipes, against the loopback fake model.

:class:`Editor` records every ``session/update``, answers permission requests as told, and
(when it offers ``fs/*``) serves files from its own buffers, and (when it offers a
terminal) runs commands in subprocesses of its own, as an editor's terminal does. Waiting is
for a condition on what arrived, never for wall time (each wait has a generous deadline that
fails the test).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.e2e.conftest import lull_command
from tests.fakes import FakeServer

DEADLINE = 60.0
"""How long a wait may take before the test fails (a failure's bound, not a pause)."""


@dataclass
class Terminal:
    """One command the editor runs for lull, and everything it printed."""

    process: asyncio.subprocess.Process
    env: dict[str, str]
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        """Collect the output until the command closes it."""
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk

    async def status(self) -> TerminalExitStatus:
        """How the command ended (waits for it)."""
        code = await self.process.wait()
        if self.reader is not None:
            await self.reader
        if code < 0:
            return TerminalExitStatus(signal=signal.Signals(-code).name)
        return TerminalExitStatus(exit_code=code)


@dataclass
class Editor:
    """The client side of one connection: what arrived, and how to answer questions."""

    answer: str | None = "allow_once"
    """The option id chosen for every permission request (None: the request is cancelled)."""
    buffers: dict[str, str] | None = None
    """The editor's open buffers by absolute path; None: it offers no ``fs/*``."""
    terminal: bool = False
    """Whether it offers ``terminal/*``."""
    terminals: dict[str, Terminal] = field(default_factory=dict)
    terminal_calls: list[tuple[str, str]] = field(default_factory=list)
    """Every ``terminal/*`` request, as (method, terminal id or command)."""
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permissions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Record one update."""
        async with self.changed:
            self.updates.append((session_id, update))
            self.changed.notify_all()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **_: Any
    ) -> RequestPermissionResponse:
        """Answer with :attr:`answer`."""
        self.permissions.append((tool_call, options))
        if self.answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = AllowedOutcome(outcome="selected", option_id=self.answer)
        return RequestPermissionResponse(outcome=chosen)

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **_: Any,
    ) -> ReadTextFileResponse:
        """Serve a buffer (the file on disk when none is open)."""
        assert self.buffers is not None, "this editor offers no fs/read_text_file"
        self.reads.append(path)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return ReadTextFileResponse(content=text)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> WriteTextFileResponse:
        """Keep the written text in the buffer (and save it, as an editor does)."""
        assert self.buffers is not None, "this editor offers no fs/write_text_file"
        self.writes.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content)
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        """Start the command in a subprocess of the editor's own."""
        assert self.terminal, "this editor offers no terminal/create"
        variables = {variable.name: variable.value for variable in env or []}
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env={**os.environ, **variables},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        running = Terminal(process, variables)
        running.reader = asyncio.create_task(running.read())
        self.terminals[terminal_id] = running
        await self._record("create", " ".join([command, *(args or [])]))
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> TerminalOutputResponse:
        """What the command printed so far, and how it ended if it did."""
        await self._record("output", terminal_id)
        running = self.terminals[terminal_id]
        ended = running.process.returncode is not None
        status = await running.status() if ended else None
        text = running.output.decode(errors="replace")
        return TerminalOutputResponse(output=text, truncated=False, exit_status=status)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> WaitForTerminalExitResponse:
        """Wait until the command has ended."""
        await self._record("wait_for_exit", terminal_id)
        status = await self.terminals[terminal_id].status()
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> KillTerminalResponse:
        """Kill the command (and what it started)."""
        await self._record("kill", terminal_id)
        process = self.terminals[terminal_id].process
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> ReleaseTerminalResponse:
        """Forget the terminal (killing the command if it still runs)."""
        running = self.terminals.pop(terminal_id)
        if running.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(running.process.pid, signal.SIGKILL)
        await self._record("release", terminal_id)
        return ReleaseTerminalResponse()

    async def _record(self, method: str, what: str) -> None:
        """Note one ``terminal/*`` request (waiters see it)."""
        async with self.changed:
            self.terminal_calls.append((method, what))
            self.changed.notify_all()

    def methods(self) -> list[str]:
        """The ``terminal/*`` methods lull called, in order."""
        return [method for method, _ in self.terminal_calls]

    def capabilities(self) -> ClientCapabilities:
        """What this editor offers."""
        offered = self.buffers is not None
        files = FileSystemCapabilities(read_text_file=offered, write_text_file=offered)
        return ClientCapabilities(fs=files, terminal=self.terminal)

    def kinds(self) -> list[str]:
        """The ``sessionUpdate`` kind of every update so far."""
        return [update.session_update for _, update in self.updates]

    def text(self, kind: str = "agent_message_chunk") -> str:
        """The text of every chunk of ``kind``, joined."""
        return "".join(
            update.content.text
            for _, update in self.updates
            if update.session_update == kind and hasattr(update.content, "text")
        )

    def of_call(self, call_id: str) -> list[Any]:
        """The tool_call and tool_call_update messages of one call, in order."""
        return [
            update
            for _, update in self.updates
            if update.session_update in ("tool_call", "tool_call_update")
            and update.tool_call_id == call_id
        ]

    async def until(self, seen: Callable[[], bool]) -> None:
        """Wait until ``seen()`` holds for what arrived."""
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(seen), DEADLINE)


@dataclass
class Connection:
    """A running ``lull acp`` and the editor's connection to it."""

    conn: ClientSideConnection
    process: asyncio.subprocess.Process
    editor: Editor
    initialized: InitializeResponse
    workspace: Path

    async def new_session(self, **kwargs: Any) -> str:
        """A new session in the workspace; its id."""
        response = await self.conn.new_session(cwd=str(self.workspace), mcp_servers=[], **kwargs)
        return response.session_id


def lull_env(fake: FakeServer, home: Path) -> dict[str, str]:
    """The environment lull runs in: the test's isolated home, the fake as the model."""
    env = dict(os.environ)
    env.update(ANTHROPIC_BASE_URL=fake.url, ANTHROPIC_API_KEY="test-key", HOME=str(home))
    return env


@asynccontextmanager
async def editor_connected(
    fake: FakeServer, workspace: Path, home: Path, editor: Editor, *args: str
) -> AsyncIterator[Connection]:
    """Start ``lull acp ARGS`` in ``workspace`` and initialize it from ``editor``."""
    command, *prefix = lull_command()
    log = (home / "lull-acp.stderr").open("wb")
    try:
        async with spawn_agent_process(
            editor,
            command,
            *prefix,
            "acp",
            *args,
            env=lull_env(fake, home),
            cwd=workspace,
            transport_kwargs={"stderr": log.fileno()},
        ) as (conn, process):
            initialized = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=editor.capabilities(),
                    client_info=Implementation(name="test-editor", version="1"),
                ),
                DEADLINE,
            )
            yield Connection(conn, process, editor, initialized, workspace)
    finally:
        log.close()
