"""The ACP methods lull answers (the SDK's ``Agent`` interface): ``initialize``,
``session/new``, ``session/load``, ``session/list``, ``session/set_mode``, ``session/prompt``
and ``session/cancel``.

Each session is a :class:`~lull.ui.acp.session.AcpSession` on its own runtime, built in the
directory the editor names, exactly as ``lull`` would build it there (settings, trust, the
user's MCP servers); the servers the editor passes join the user's for that session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lull.runtime import RunOptions, Runtime, StartupError, build_runtime
from lull.settings.errors import SettingsError
from lull.ui.acp.client_mcp import client_servers
from lull.ui.acp.files import client_files
from lull.ui.acp.listing import saved_sessions
from lull.ui.acp.modes import approval_mode, available_commands, session_modes
from lull.ui.acp.session import AcpSession
from lull.ui.acp.terminal import client_terminal
from lull.version import version

if TYPE_CHECKING:
    from acp.helpers import ContentBlock
    from acp.interfaces import Client
    from acp.schema import (
        ClientCapabilities,
        Implementation,
        InitializeResponse,
        ListSessionsResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
        SetSessionModeResponse,
    )

log = logging.getLogger("lull.acp")


class LullAgent:
    """lull as an ACP agent: one :class:`AcpSession` per editor session, all on the options
    the command line gave (``options.workspace`` is replaced by each session's ``cwd``)."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.sessions: dict[str, AcpSession] = {}
        self.capabilities: ClientCapabilities | None = None
        self._client: Client | None = None
        self._background: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        """The SDK hands over the editor's side of the connection."""
        self._client = conn

    @property
    def client(self) -> Client:
        """The editor's side of the connection (set before the first request)."""
        assert self._client is not None, "on_connect comes first"
        return self._client

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        """Agree on the protocol version and say what lull can do."""
        from acp import PROTOCOL_VERSION
        from acp.schema import (
            AgentCapabilities,
            Implementation,
            InitializeResponse,
            McpCapabilities,
            PromptCapabilities,
            SessionCapabilities,
            SessionListCapabilities,
        )

        self.capabilities = client_capabilities
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="lull", title="lull", version=version()),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """lull offers no sign-in: its keys come from the environment and settings."""
        return None

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        """Start a new lull session in ``cwd``."""
        from acp.schema import NewSessionResponse

        session = self._open(cwd, mcp_servers, resume=None)
        self._after_reply(*(session.say(note) for note in self._start_notes(session.runtime)))
        return NewSessionResponse(
            session_id=session.id, modes=session_modes(session.runtime.agent.tools.mode)
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        """Resume the saved lull session ``session_id`` of ``cwd`` and replay it."""
        from acp.schema import LoadSessionResponse

        old = self.sessions.pop(session_id, None)
        if old is not None:
            await old.close()
        session = self._open(cwd, mcp_servers, resume=session_id)
        await session.replay()
        return LoadSessionResponse(modes=session_modes(session.runtime.agent.tools.mode))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The saved sessions of ``cwd`` (none given: the directory lull started in), newest
        first, in one page."""
        from acp import RequestError
        from acp.schema import ListSessionsResponse

        workspace = self.options.workspace if cwd is None else Path(cwd).expanduser()
        if not workspace.is_absolute():
            raise RequestError.invalid_params({"cwd": f"{cwd} is not an absolute path"})
        return ListSessionsResponse(sessions=saved_sessions(workspace))

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """Switch the session's approval mode."""
        from acp import RequestError
        from acp.schema import SetSessionModeResponse

        mode = approval_mode(mode_id)
        if mode is None:
            raise RequestError.invalid_params({"modeId": f"no mode {mode_id!r}"})
        self._session(session_id).runtime.agent.tools.mode = mode
        return SetSessionModeResponse()

    async def prompt(
        self, session_id: str, prompt: list[ContentBlock], **kwargs: Any
    ) -> PromptResponse:
        """Run one prompt of the session to its end."""
        from acp.schema import PromptResponse

        reason = await self._session(session_id).prompt(prompt)
        return PromptResponse(stop_reason=reason)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Stop the session's running prompt (an unknown session: nothing to stop)."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """lull has no extension methods."""
        from acp import RequestError

        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """Extension notifications are ignored."""

    async def close(self) -> list[str]:
        """Close every session (the editor went away); what could not be saved."""
        problems: list[str] = []
        for session in list(self.sessions.values()):
            unsaved = await session.close()
            problems.extend([unsaved] if unsaved else [])
        self.sessions.clear()
        return problems

    # --- helpers ------------------------------------------------------------------------------

    def _open(self, cwd: str, mcp_servers: list[Any] | None, resume: str | None) -> AcpSession:
        """A session on a runtime built in ``cwd`` (resuming ``resume``)."""
        from acp import RequestError

        workspace = Path(cwd).expanduser()
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd} is not an absolute directory"})
        options = dataclasses.replace(
            self.options,
            workspace=workspace,
            resume=resume,
            continue_last=False,
            fork_session=False,
            client_mcp_servers=client_servers(mcp_servers or []),
        )
        runtime = _build(options)
        session_id = resume if resume is not None else runtime.agent.session.id
        session = AcpSession(session_id, runtime, self.client)
        session.use_editor_files(client_files(self.client, session_id, self.capabilities))
        sandboxed = runtime.settings.sandbox.enabled
        session.use_editor_terminal(
            client_terminal(
                self.client,
                session_id,
                self.capabilities,
                session.show_terminal,
                sandboxed=sandboxed,
            )
        )
        self.sessions[session_id] = session
        runtime.start_tools()
        commands = available_commands(workspace)
        self._after_reply(self._send_commands(session, commands))
        return session

    async def _send_commands(self, session: AcpSession, commands: list[Any]) -> None:
        from acp.helpers import update_available_commands

        await session.send(update_available_commands(commands))

    def _start_notes(self, runtime: Runtime) -> list[str]:
        """What the terminal says at start (warnings about settings, trust, the cache)."""
        notes = [f"{d.level}: {d.message}" for d in runtime.loaded.diagnostics]
        notes += list(runtime.start_notes)
        notes += [f"warning: {note}" for note in runtime.cache_warnings()]
        notes += [f"warning: {note}" for note in runtime.mcp_notes()]
        return notes

    def _after_reply(self, *calls: Coroutine[Any, Any, None]) -> None:
        """Run ``calls`` in order once the current reply is on its way (the SDK queues the
        reply as the handler returns): the editor knows the session before its updates."""
        for call in calls:
            task = asyncio.get_running_loop().create_task(call)
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    def _session(self, session_id: str) -> AcpSession:
        from acp import RequestError

        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": f"no session {session_id!r}"})
        return session


def _build(options: RunOptions) -> Runtime:
    """The runtime for a session; a start that fails is the request's error, in one line."""
    from acp import RequestError

    try:
        return build_runtime(options)
    except (SettingsError, StartupError) as error:
        raise RequestError.internal_error({"message": f"lull cannot start: {error}"}) from error
