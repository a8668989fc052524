"""macOS: the Seatbelt profile (``sandbox-exec -p``) that runs one command inside the boundary.

Written to the same boundary as :mod:`lull.tools.process.sandbox.bwrap`: everything denied
by default; processes, signals within the sandbox, system lookups allowed; every file
readable except the hidden places (but the ``readable`` places inside them); writes only in
the writable places (and the terminal devices), never in the read-only ones; no network but
the proxy's port on loopback (lull's proxy listens there directly, no relay needed), the
listed Unix sockets, and with ``local_binding`` binding, serving and connecting on localhost
(which on macOS is the machine's own: no separate loopback as on Linux). In Seatbelt's
language a later rule wins over an earlier one, so each exception follows the rule it
narrows.

Only the profile's text is tested (on Linux); it has not been run on a Mac by this project.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from lull.tools.process.sandbox.policy import SandboxPolicy

BASE_RULES = """\
(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow process-info* (target same-sandbox))
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow ipc-posix-sem)
(allow user-preference-read)
(allow iokit-get-properties)
(allow file-read-metadata)
(allow file-read*)"""

LOCAL_BINDING = [
    '(allow network-bind (local ip "localhost:*"))',
    '(allow network-inbound (local ip "localhost:*"))',
    '(allow network-outbound (remote ip "localhost:*"))',
]
"""The rules ``allowLocalBinding`` adds: serve on localhost ports, and connect to them."""

DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper")
"""Devices a command may write besides its own files."""


def quoted(path: Path | str) -> str:
    """``path`` as a Seatbelt string literal."""
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _subpaths(paths: Iterable[Path]) -> str:
    return " ".join(f"(subpath {quoted(path)})" for path in paths)


def seatbelt_profile(policy: SandboxPolicy, proxy_port: int, temp_dir: Path) -> str:
    """The profile for ``policy``, with the proxy on 127.0.0.1:``proxy_port`` and
    ``temp_dir`` writable."""
    lines = [BASE_RULES]
    if policy.hidden:
        lines.append(f"(deny file-read* {_subpaths(policy.hidden)})")
    if policy.readable:
        lines.append(f"(allow file-read* {_subpaths(policy.readable)})")
    writable = (*policy.writable, temp_dir)
    devices = " ".join(f"(literal {quoted(device)})" for device in DEVICES)
    lines.append(f'(allow file-write* {_subpaths(writable)} {devices} (regex #"^/dev/ttys"))')
    if policy.read_only:
        lines.append(f"(deny file-write* {_subpaths(policy.read_only)})")
    if policy.hidden:
        lines.append(f"(deny file-write* {_subpaths(policy.hidden)})")
    lines.append(f'(allow network-outbound (remote ip "localhost:{proxy_port}"))')
    lines += [
        f"(allow network-outbound (remote unix-socket (path-literal {quoted(socket)})))"
        for socket in policy.unix_sockets
    ]
    if policy.local_binding:
        lines += LOCAL_BINDING
    return "\n".join(lines) + "\n"


def seatbelt_argv(
    policy: SandboxPolicy,
    command: Sequence[str],
    *,
    proxy_port: int,
    temp_dir: Path,
    sandbox_exec: str = "/usr/bin/sandbox-exec",
) -> list[str]:
    """``sandbox-exec`` with the profile for ``policy`` around ``command``."""
    profile = seatbelt_profile(policy, proxy_port, temp_dir)
    return [sandbox_exec, "-p", profile, *command]
