"""The sandbox commands run in: a :class:`~lull.tools.confinement.CommandSandbox` joining
the policy, the platform's launcher and one proxy per command.

It keeps a directory of its own under the system's temp directory for as long as lull runs:
``tmp/`` (the commands' ``TMPDIR``, writable), an unreadable empty file that stands in for
hidden files, and per command a directory with the proxy's socket. A host the policy does not
list may be asked about (``ask_domain``, told which tool call's command wants it), once per
session: the answer is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lull.tools.confinement import SandboxUnavailable
from lull.tools.process.sandbox.bwrap import bound_sockets, bwrap_argv, proxy_environment
from lull.tools.process.sandbox.denials import (
    denied_reads,
    denied_sockets,
    denied_writes,
    explain,
)
from lull.tools.process.sandbox.policy import SandboxPolicy
from lull.tools.process.sandbox.probe import Availability
from lull.tools.process.sandbox.proxy import DomainProxy
from lull.tools.process.sandbox.seatbelt import seatbelt_argv

AskDomain = Callable[[str, str], Awaitable[bool]]
"""Asks the user whether sandboxed commands may reach a host (True: allow for the session);
the second argument is the id of the tool call whose command asks ("" when none is known)."""


@dataclass(frozen=True, slots=True)
class ConfinedCommand:
    """One command as the sandbox runs it, and what its proxy refused."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    command: str
    policy: SandboxPolicy
    proxy: DomainProxy

    def denials(self, output: str) -> tuple[str, ...]:
        """What the sandbox denied the command, one sentence each."""
        writes = denied_writes(output, self.command, self.policy)
        reads = denied_reads(output, self.command, self.policy)
        sockets = denied_sockets(output, self.command, self.policy)
        return explain(writes, reads, self.proxy.denied, self.policy, sockets)


class Sandbox:
    """The OS sandbox of one workspace (see the module docstring)."""

    def __init__(
        self,
        policy: SandboxPolicy,
        availability: Availability,
        ask_domain: AskDomain | None = None,
    ) -> None:
        self.policy = policy
        self.availability = availability
        self.ask_domain = ask_domain
        self.decided: dict[str, bool] = {}
        """Hosts the user was asked about this session, and the answers."""
        self._asking: dict[str, asyncio.Future[bool]] = {}
        self._base: Path | None = None
        self._runs = itertools.count(1)

    @property
    def auto_allow(self) -> bool:
        """Sandboxed commands run without asking (``autoAllowBashIfSandboxed``)."""
        return self.policy.auto_allow and self.availability.ready

    @property
    def allows_unconfined(self) -> bool:
        """A command may be run again outside the sandbox, asked."""
        return self.policy.allow_unconfined

    def confines(self, command: str) -> bool:
        """Whether ``command`` runs inside (False for an excluded command)."""
        return not self.policy.excludes(command)

    @property
    def temp_dir(self) -> Path:
        """The commands' ``TMPDIR`` (made on first use, removed when lull exits)."""
        return self._home() / "tmp"

    def _home(self) -> Path:
        """The sandbox's own directory, made on first use."""
        if self._base is None:
            base = Path(tempfile.mkdtemp(prefix="lull-sandbox-")).resolve()
            (base / "tmp").mkdir()
            hidden = base / "unreadable"
            hidden.touch()
            hidden.chmod(0)
            weakref.finalize(self, shutil.rmtree, base, True)
            self._base = base
        return self._base

    async def admits(self, host: str, call_id: str = "") -> bool:
        """Whether commands may reach ``host``: listed, or allowed when asked (once; the
        question names the tool call ``call_id`` whose command wants it)."""
        if self.policy.admits(host):
            return True
        if host in self.decided or self.ask_domain is None:
            return self.decided.get(host, False)
        if host in self._asking:  # another connection asked already: one question, one answer
            return await asyncio.shield(self._asking[host])
        asked = self._asking[host] = asyncio.get_running_loop().create_future()
        try:
            answer = await self.ask_domain(host, call_id)
        except BaseException:
            asked.set_result(False)
            raise
        finally:
            del self._asking[host]
        self.decided[host] = answer
        asked.set_result(answer)
        return answer

    @contextlib.asynccontextmanager
    async def confine(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, call_id: str = ""
    ) -> AsyncIterator[ConfinedCommand]:
        """``argv`` inside the sandbox, its proxy serving while the context lasts (a new host
        is asked about as the tool call ``call_id``'s)."""
        if not self.availability.ready:
            raise SandboxUnavailable(
                f"the sandbox cannot start: {self.availability.missing} "
                "(sandbox.failIfUnavailable is set, so commands do not run without it)"
            )
        policy = replace(self.policy, writable=(*self.policy.writable, self.temp_dir))
        run_dir = self._home() / f"run-{os.getpid()}-{next(self._runs)}"
        run_dir.mkdir()
        proxy = DomainProxy(functools.partial(self.admits, call_id=call_id))
        command = argv[-1] if argv else ""
        extra = {"TMPDIR": str(self.temp_dir)}
        try:
            if self.availability.platform == "macos":
                port = await proxy.serve_loopback()
                launched = seatbelt_argv(
                    policy, argv, proxy_port=port, temp_dir=self.temp_dir,
                    sandbox_exec=self.availability.launcher or "sandbox-exec",
                )  # fmt: skip
                extra |= proxy_environment(port, policy.local_binding)
            else:
                socket = run_dir / "proxy.sock"
                await proxy.serve_unix(socket)
                launched = bwrap_argv(
                    policy, argv, socket=socket, unreadable_file=self._home() / "unreadable",
                    bwrap=self.availability.launcher or "bwrap", sockets=bound_sockets(),
                )  # fmt: skip
                extra |= proxy_environment(local_binding=policy.local_binding)
            yield ConfinedCommand(tuple(launched), {**env, **extra}, command, policy, proxy)
        finally:
            await proxy.close()
            shutil.rmtree(run_dir, ignore_errors=True)
