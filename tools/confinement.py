"""What a tool needs of the OS sandbox: a command's argv and environment as the sandbox runs
them, and afterwards what the sandbox denied.

The sandbox itself (bubblewrap, Seatbelt, the domain proxy) is
:mod:`lull.tools.process.sandbox`; :class:`lull.tools.base.ToolContext` carries it as a
:class:`CommandSandbox` so that tools and the approval policy need not know how it works.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

UNCONFINED_FLAG = "dangerously_disable_sandbox"
"""The shell tool's argument that asks to run one command outside the sandbox (Claude
Code's ``dangerouslyDisableSandbox``)."""


class SandboxUnavailable(Exception):
    """The sandbox is on but cannot start, and ``sandbox.failIfUnavailable`` says to refuse
    commands rather than run them unconfined (the message says what is missing)."""


class ConfinedRun(Protocol):
    """One command inside the sandbox: what to start, and afterwards what was denied."""

    @property
    def argv(self) -> tuple[str, ...]:
        """The program and arguments to start (the sandbox's launcher around the command)."""
        ...

    @property
    def env(self) -> Mapping[str, str]:
        """The environment to start it with (the proxy, the sandbox's temp directory)."""
        ...

    def denials(self, output: str) -> tuple[str, ...]:
        """What the sandbox denied while the command ran, one sentence each (paths named
        in ``output``, domains the proxy refused)."""
        ...


class CommandSandbox(Protocol):
    """The OS sandbox commands run in (``sandbox.*`` settings)."""

    @property
    def auto_allow(self) -> bool:
        """Sandboxed commands run without asking (``autoAllowBashIfSandboxed``)."""
        ...

    @property
    def allows_unconfined(self) -> bool:
        """A command may be run again outside it, asked (``allowUnsandboxedCommands``)."""
        ...

    def confines(self, command: str) -> bool:
        """Whether the shell line ``command`` runs inside (False: ``excludedCommands``)."""
        ...

    def confine(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, call_id: str = ""
    ) -> AbstractAsyncContextManager[ConfinedRun]:
        """``argv`` as the sandbox runs it, for as long as the context lasts (the proxy
        serves it meanwhile; a question about a new host names the tool call ``call_id``);
        raises :class:`SandboxUnavailable` when it cannot start."""
        ...


@dataclass(frozen=True, slots=True)
class Unconfined:
    """A command run as the user's own, outside any sandbox."""

    argv: tuple[str, ...]
    env: Mapping[str, str]

    def denials(self, output: str) -> tuple[str, ...]:
        """Nothing: no sandbox denies anything."""
        return ()


@contextlib.asynccontextmanager
async def unconfined(argv: Sequence[str], env: Mapping[str, str]) -> AsyncIterator[ConfinedRun]:
    """``argv`` started as it is."""
    yield Unconfined(tuple(argv), env)


def launch(
    sandbox: CommandSandbox | None,
    command: str,
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    call_id: str = "",
) -> AbstractAsyncContextManager[ConfinedRun]:
    """How the shell line ``command`` (run as ``argv``, for the tool call ``call_id``)
    starts: inside ``sandbox``, or as it is when there is none or the line is one of its
    excluded commands."""
    if sandbox is None or not sandbox.confines(command):
        return unconfined(argv, env)
    return sandbox.confine(argv, env, cwd, call_id)
