"""What the sandbox denied a command, read from its output, said so the model can ask for it.

The kernel tells a command, not lull: a write outside the writable places fails with
"Read-only file system" (``EROFS``), a read of a hidden place with "Permission denied"
(``EACCES``; inside a hidden folder that has ``allowRead`` places, "No such file or
directory"), a connection to a Unix socket the command may not reach with "Permission
denied". Most programs print the path with the error (``rm: cannot remove '/x/y':
Read-only file system``, ``mkdir: cannot create directory ‘/x’``, ``OSError: [Errno 30]
Read-only file system: '/x'``), and then the path is the one denied (*named*). Some do not
(``touch: cannot touch 'rel'`` after a ``cd``, ``shutil.rmtree``, a bare ``PermissionError:
[Errno 13] Permission denied`` from ``connect``): then the paths the command itself names
that the boundary covers are given as a *guess*, said to be one, or only which boundary
applies. A domain the proxy refused is known exactly (:class:`DomainProxy.denied`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lull.tools.process.sandbox.policy import SandboxPolicy

READ_ONLY_MARKS = ("Read-only file system", "Errno 30")
DENIED_MARKS = ("Permission denied", "Operation not permitted", "Errno 13", "Errno 1]")
MISSING_MARKS = ("No such file or directory", "Errno 2]")
_PATH = re.compile(r"""(?:^|[\s'"‘`(:=])(~?/[^\s'"’`:,)]*)""")
MAX_PATHS = 5


@dataclass(frozen=True, slots=True)
class Denied:
    """Paths of one kind of denial: ``named`` by the error lines themselves, or (when they
    name none) ``guessed`` from the paths the command names."""

    named: list[Path] = field(default_factory=list)
    guessed: list[Path] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.named or self.guessed)


def _paths(line: str, workspace: Path) -> list[Path]:
    """The absolute paths a line of output names."""
    found: list[Path] = []
    for match in _PATH.finditer(line):
        text = match.group(1)
        path = Path(text).expanduser() if text.startswith("~") else Path(text)
        if not path.is_absolute():
            path = workspace / path
        found.append(path)
    return found


def _command_paths(command: str, workspace: Path) -> list[Path]:
    """The absolute paths the shell line names (``$HOME`` read as ``~``), but programs (an
    executable file is what runs, not what a command writes)."""
    text = command.replace("${HOME}", "~").replace("$HOME", "~")
    return [path for path in dict.fromkeys(_paths(text, workspace)) if not _program(path)]


def _program(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except OSError:
        return False


def _lines(output: str, marks: Iterable[str]) -> list[str]:
    marks = tuple(marks)
    return [line for line in output.splitlines() if any(mark in line for mark in marks)]


def _kept(paths: Iterable[Path], keep: Callable[[Path], bool]) -> list[Path]:
    """``paths`` that ``keep`` holds for, each once, at most :data:`MAX_PATHS`."""
    return [path for path in dict.fromkeys(paths) if keep(path)][:MAX_PATHS]


def denied_writes(output: str, command: str, policy: SandboxPolicy) -> Denied | None:
    """Writes the sandbox denied: the read-only paths the "Read-only file system" lines of
    ``output`` name, else the ones the ``command`` names (guessed). Empty: a write was denied
    but no path is known; None: no write was denied."""
    lines = _lines(output, READ_ONLY_MARKS)
    if not lines:
        return None
    named = (path for line in lines for path in _paths(line, policy.workspace))
    found = _kept(named, lambda path: not policy.is_writable(path))
    if found:
        return Denied(named=found)
    guessed = _command_paths(command, policy.workspace)
    return Denied(guessed=_kept(guessed, lambda path: not policy.is_writable(path)))


def denied_reads(output: str, command: str, policy: SandboxPolicy) -> Denied:
    """Hidden places that ``output`` says could not be read ("Permission denied", or "No
    such file or directory" inside a hidden folder), else hidden places the ``command``
    names when something was denied (guessed)."""
    lines = _lines(output, (*DENIED_MARKS, *MISSING_MARKS))
    named = (path for line in lines for path in _paths(line, policy.workspace))
    found = _kept(named, lambda path: policy.is_hidden(path) is not None)
    if found or not _lines(output, DENIED_MARKS):
        return Denied(named=found)
    guessed = _command_paths(command, policy.workspace)
    return Denied(guessed=_kept(guessed, lambda path: policy.is_hidden(path) is not None))


def denied_sockets(output: str, command: str, policy: SandboxPolicy) -> Denied:
    """Unix sockets the command may not connect to, when ``output`` says something was
    denied: those its error lines name, else those the ``command`` names (guessed)."""
    lines = _lines(output, DENIED_MARKS)
    if not lines:
        return Denied()

    def unreachable(path: Path) -> bool:
        try:
            real = path.resolve()
            return real.is_socket() and not policy.may_connect(real)
        except OSError:
            return False

    named = (path for line in lines for path in _paths(line, policy.workspace))
    found = _kept(named, unreachable)
    if found:
        return Denied(named=found)
    return Denied(guessed=_kept(_command_paths(command, policy.workspace), unreachable))


WRITABLE = (
    "outside the workspace, $TMPDIR and sandbox.filesystem.allowWrite everything is read-only"
)
HIDDEN = "hidden: credentials, lull's own files, sandbox.filesystem.denyRead"


def explain(
    writes: Denied | None,
    reads: Denied,
    domains: Iterable[str],
    policy: SandboxPolicy,
    sockets: Denied | None = None,
) -> tuple[str, ...]:
    """One sentence per denial, each saying which setting would allow it, and whether the
    path was named by the error or guessed from the command."""
    sentences: list[str] = []
    if writes is not None and not writes:
        sentences.append(
            f"the sandbox denied a write, and the error does not say where: {WRITABLE} "
            "(sandbox.filesystem.allowWrite can allow a path)"
        )
    for path in writes.named if writes else ():
        sentences.append(f"the sandbox denied writing {path} ({_why_read_only(path, policy)})")
    for path in writes.guessed if writes else ():
        sentences.append(
            "the sandbox denied a write; the error does not name the path, but the command "
            f"names {path}, which is read-only here ({_why_read_only(path, policy)})"
        )
    for path in reads.named:
        sentences.append(
            f"the sandbox denied access to {path} ({HIDDEN}; sandbox.filesystem.allowRead "
            "can re-allow a path)"
        )
    for path in reads.guessed:
        sentences.append(
            "the sandbox denied access; the error does not name the path, but the command "
            f"names {path} ({HIDDEN})"
        )
    for path in sockets.named if sockets else ():
        sentences.append(
            f"the sandbox denied connecting to the Unix socket {path} "
            "(sandbox.network.allowUnixSockets can allow it)"
        )
    for path in sockets.guessed if sockets else ():
        sentences.append(
            "the sandbox denied something; the error does not name it, but the command names "
            f"the Unix socket {path}, which sandboxed commands cannot reach "
            "(sandbox.network.allowUnixSockets can allow it)"
        )
    for host in domains:
        sentences.append(
            f"the sandbox denied network access to {host} (not in sandbox.network.allowedDomains)"
        )
    return tuple(sentences)


def _why_read_only(path: Path, policy: SandboxPolicy) -> str:
    """Which part of the boundary makes ``path`` read-only, and what would allow it."""
    if any(path.is_relative_to(root) for root in policy.read_only):
        return "it is in sandbox.filesystem.denyWrite"
    return "outside the workspace; sandbox.filesystem.allowWrite can allow it"
