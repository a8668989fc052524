"""What the sandbox denied a command, read from its output, said so the model can ask for it.

The kernel tells a command, not lull: a write outside the writable places fails with
"Read-only file system" (``EROFS``), a read of a hidden place with "Permission denied". The
programs print the path with the error (``rm: cannot remove '/x/y': Read-only file system``,
``OSError: [Errno 30] Read-only file system: '/x'``), so each such line names what was
denied. A domain the proxy refused is known exactly (:class:`DomainProxy.denied`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from lull.tools.process.sandbox.policy import SandboxPolicy

READ_ONLY_MARKS = ("Read-only file system", "Errno 30")
DENIED_MARKS = ("Permission denied", "Operation not permitted", "Errno 13", "Errno 1]")
_PATH = re.compile(r"""(?:^|[\s'"‘`(:=])(~?/[^\s'"’`:,)]*)""")
MAX_PATHS = 5


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


def denied_writes(output: str, command: str, policy: SandboxPolicy) -> list[Path] | None:
    """Paths outside the writable places that a line of ``output`` says were read-only;
    when such a line names none (``shutil.rmtree`` names a file relative to its directory),
    the ones the ``command`` names. Empty: a write was denied but no path is known; None:
    no write was denied."""
    lines = [line for line in output.splitlines() if any(m in line for m in READ_ONLY_MARKS)]
    if not lines:
        return None
    paths: list[Path] = []
    for path in (path for line in lines for path in _paths(line, policy.workspace)):
        if not policy.is_writable(path) and path not in paths:
            paths.append(path)
    if not paths:
        named = _paths(command.replace("$HOME", "~").replace("${HOME}", "~"), policy.workspace)
        paths = [path for path in dict.fromkeys(named) if not policy.is_writable(path)]
    return paths[:MAX_PATHS]


def denied_reads(output: str, command: str, policy: SandboxPolicy) -> list[Path]:
    """Hidden places that ``output`` says could not be read, or that the failing
    ``command`` names (``cat ~/.ssh/id_rsa``)."""
    places: list[Path] = []
    lines = [line for line in output.splitlines() if any(m in line for m in DENIED_MARKS)]
    named = [path for line in lines for path in _paths(line, policy.workspace)]
    named += _paths(command.replace("$HOME", "~").replace("${HOME}", "~"), policy.workspace)
    for path in named:
        root = policy.is_hidden(path)
        if root is not None and path not in places:
            places.append(path)
    return places[:MAX_PATHS]


def explain(
    writes: list[Path] | None,
    reads: Iterable[Path],
    domains: Iterable[str],
    policy: SandboxPolicy,
) -> tuple[str, ...]:
    """One sentence per denial, each saying which setting would allow it."""
    sentences: list[str] = []
    if writes == []:
        sentences.append(
            "the sandbox denied a write outside the workspace (a read-only file system); "
            "sandbox.filesystem.allowWrite can allow a path"
        )
    for path in writes or ():
        if any(path.is_relative_to(root) for root in policy.read_only):
            why = "it is in sandbox.filesystem.denyWrite"
        else:
            why = "outside the workspace; sandbox.filesystem.allowWrite can allow it"
        sentences.append(f"the sandbox denied writing {path} ({why})")
    for path in reads:
        sentences.append(
            f"the sandbox denied reading {path} (credentials and lull's own files are hidden; "
            "sandbox.filesystem.denyRead)"
        )
    for host in domains:
        sentences.append(
            f"the sandbox denied network access to {host} (not in sandbox.network.allowedDomains)"
        )
    return tuple(sentences)
