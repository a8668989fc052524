"""The editor's terminal as where commands run: ``terminal/create``, ``terminal/output``,
``terminal/wait_for_exit``, ``terminal/kill`` and ``terminal/release`` where the client's
capabilities offer ``terminal`` and lull's sandbox is off (``ToolContext.terminal``); the
tool call shows the terminal live (its content embeds the terminal's id)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lull.tools.base import TerminalOutput

if TYPE_CHECKING:
    from acp.interfaces import Client
    from acp.schema import ClientCapabilities

TERMINAL_OUTPUT_BYTES = 1024 * 1024
"""How much output the editor keeps for lull (``outputByteLimit``: it keeps the end)."""

ShowTerminal = Callable[[str, str], Awaitable[None]]
"""Show terminal ``terminal_id`` in tool call ``call_id`` (the session's updates)."""


class ClientTerminal:
    """:class:`~lull.tools.base.EditorTerminal` over one ACP session's client."""

    def __init__(self, client: Client, session_id: str, show: ShowTerminal) -> None:
        self.client = client
        self.session_id = session_id
        self.show = show

    async def create(
        self, argv: tuple[str, ...], cwd: Path, env: Mapping[str, str], call_id: str
    ) -> str:
        """``terminal/create`` for ``argv``; the call shows the terminal from now on."""
        from acp.exceptions import RequestError
        from acp.schema import EnvVariable

        variables = [EnvVariable(name=name, value=value) for name, value in env.items()]
        try:
            created = await self.client.create_terminal(
                session_id=self.session_id,
                command=argv[0],
                args=list(argv[1:]),
                env=variables,
                cwd=str(cwd),
                output_byte_limit=TERMINAL_OUTPUT_BYTES,
            )
        except RequestError as error:
            raise OSError(str(error)) from error
        await self.show(call_id, created.terminal_id)
        return created.terminal_id

    async def wait_for_exit(self, terminal_id: str) -> None:
        """``terminal/wait_for_exit``."""
        from acp.exceptions import RequestError

        try:
            await self.client.wait_for_terminal_exit(
                session_id=self.session_id, terminal_id=terminal_id
            )
        except RequestError as error:
            raise OSError(str(error)) from error

    async def output(self, terminal_id: str) -> TerminalOutput:
        """``terminal/output``."""
        from acp.exceptions import RequestError

        try:
            held = await self.client.terminal_output(
                session_id=self.session_id, terminal_id=terminal_id
            )
        except RequestError as error:
            raise OSError(str(error)) from error
        status = held.exit_status
        if status is None:
            return TerminalOutput(held.output, held.truncated)
        return TerminalOutput(held.output, held.truncated, True, status.exit_code, status.signal)

    async def kill(self, terminal_id: str) -> None:
        """``terminal/kill``."""
        from acp.exceptions import RequestError

        try:
            await self.client.kill_terminal(session_id=self.session_id, terminal_id=terminal_id)
        except RequestError as error:
            raise OSError(str(error)) from error

    async def release(self, terminal_id: str) -> None:
        """``terminal/release``."""
        from acp.exceptions import RequestError

        try:
            await self.client.release_terminal(session_id=self.session_id, terminal_id=terminal_id)
        except RequestError as error:
            raise OSError(str(error)) from error


def client_terminal(
    client: Client,
    session_id: str,
    capabilities: ClientCapabilities | None,
    show: ShowTerminal,
    *,
    sandboxed: bool,
) -> ClientTerminal | None:
    """The editor's terminal, when its capabilities offer one and commands are not to run in
    lull's sandbox (``sandboxed``: ``sandbox.enabled``; they stay in lull's own shell)."""
    if sandboxed or capabilities is None or not capabilities.terminal:
        return None
    return ClientTerminal(client, session_id, show)
