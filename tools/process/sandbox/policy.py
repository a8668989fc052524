"""What a sandboxed command may touch: the boundary both platforms enforce.

The whole file system is readable but read-only, except the workspace, the sandbox's own
temp directory and ``sandbox.filesystem.allowWrite``; ``denyWrite`` paths stay read-only even
inside those. :data:`CREDENTIAL_PATHS` under the home directory, lull's own config and data
directories and ``denyRead`` are unreadable, except ``allowRead`` paths inside them. The
network is reachable only through lull's proxy, which admits
``sandbox.network.allowedDomains``; Unix sockets outside the writable places only when
``allowUnixSockets`` lists them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CREDENTIAL_PATHS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
)
"""Paths under the home directory that hold keys and tokens; a sandboxed command cannot
read them."""


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """The boundary of one workspace's sandbox, with every path absolute.

    ``writable``: where commands may write (the workspace first); ``read_only``: places inside
    those that stay read-only; ``hidden``: what commands may not read; ``readable``: places
    inside hidden ones they may read again (``allowRead``); ``allowed_domains``: the hosts
    the proxy admits (``*.example.com`` covers subdomains, ``*`` every host);
    ``unix_sockets``: sockets (or folders of them) outside the writable places commands may
    connect to; ``local_binding``: ``allowLocalBinding``; ``excluded_commands``: commands
    that run outside the sandbox; ``auto_allow`` and ``allow_unconfined``:
    ``autoAllowBashIfSandboxed`` and ``allowUnsandboxedCommands``.
    """

    workspace: Path
    writable: tuple[Path, ...]
    read_only: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    unix_sockets: tuple[Path, ...] = ()
    local_binding: bool = False
    excluded_commands: tuple[str, ...] = ()
    auto_allow: bool = True
    allow_unconfined: bool = True

    def excludes(self, command: str) -> bool:
        """Whether the shell line ``command`` runs outside the sandbox: it is an excluded
        command, starts with one and a space (``docker`` covers ``docker ps``) or matches an
        entry with wildcards (``docker *``)."""
        line = command.strip()
        for entry in self.excluded_commands:
            entry = entry.strip().removesuffix(":*").strip()
            if line == entry or line.startswith(f"{entry} "):
                return True
            if any(mark in entry for mark in "*?[") and fnmatch.fnmatchcase(line, entry):
                return True
        return False

    def admits(self, host: str) -> bool:
        """Whether the proxy lets a command reach ``host`` (case and a trailing dot
        ignored)."""
        name = host.strip().rstrip(".").lower()
        for entry in self.allowed_domains:
            domain = entry.strip().rstrip(".").lower()
            if domain == "*" or name == domain:
                return True
            if domain.startswith("*.") and name.endswith(domain[1:]):
                return True
        return False

    def is_hidden(self, path: Path) -> Path | None:
        """The hidden place ``path`` is in (None: not hidden, or re-allowed by ``readable``)."""
        if any(path.is_relative_to(place) for place in self.readable):
            return None
        return next((root for root in self.hidden if path.is_relative_to(root)), None)

    def readable_inside(self, root: Path) -> tuple[Path, ...]:
        """The ``readable`` places inside the hidden place ``root``."""
        return tuple(place for place in self.readable if place.is_relative_to(root))

    def may_connect(self, socket: Path) -> bool:
        """Whether a command may connect to the Unix socket ``socket``: it is in a writable
        place (the command could have made it) or listed in ``unix_sockets``."""
        places = (*self.writable, *self.unix_sockets)
        return any(socket.is_relative_to(place) for place in places)

    def is_writable(self, path: Path) -> bool:
        """Whether a sandboxed command may write ``path``."""
        if any(path.is_relative_to(root) for root in self.read_only):
            return False
        return any(path.is_relative_to(root) for root in self.writable)


def absolute(entry: str, workspace: Path) -> Path:
    """A settings path as the sandbox uses it: ``~`` expanded, relative to the workspace,
    symlinks resolved as far as they exist."""
    path = Path(entry).expanduser()
    return (path if path.is_absolute() else workspace / path).resolve()


def hidden_paths(
    home: Path, own_dirs: Iterable[Path], deny_read: Iterable[str], workspace: Path
) -> tuple[Path, ...]:
    """Everything a sandboxed command may not read: :data:`CREDENTIAL_PATHS` under ``home``,
    lull's ``own_dirs`` (config, data) and the user's ``deny_read`` entries; never the
    workspace itself or a place that holds it."""
    paths = [home / name for name in CREDENTIAL_PATHS]
    paths += [Path(path) for path in own_dirs]
    paths += [absolute(entry, workspace) for entry in deny_read]
    kept: list[Path] = []
    for path in paths:
        resolved = path.resolve()
        if workspace.is_relative_to(resolved) or resolved in kept:
            continue
        kept.append(resolved)
    return tuple(kept)


def reopened(
    hidden: tuple[Path, ...], allow_read: Iterable[Path]
) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """``hidden`` without the places ``allow_read`` re-allows whole, and the ``allow_read``
    places left inside a hidden one (those a command may read again)."""
    allowed = tuple(dict.fromkeys(allow_read))
    kept = tuple(place for place in hidden if not any(place.is_relative_to(a) for a in allowed))
    inside = tuple(a for a in allowed if any(a.is_relative_to(place) for place in kept))
    return kept, inside
