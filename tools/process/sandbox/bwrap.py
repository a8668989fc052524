"""Linux: the bubblewrap command line that runs one command inside the boundary.

The whole file system is bound read-only, then the writable places read-write over it, then
``read_only`` places read-only again, then each hidden place replaced: a directory by an
empty tmpfs that nobody may enter (mode 0000), a file by an unreadable empty file. Paths
that do not exist are skipped (a read-only file system cannot get them later anyway).

The command gets new PID, IPC and network namespaces and no capabilities (also when lull
runs as root). Its network namespace has only a loopback interface: inside, ``socat``
listens on 127.0.0.1:``PROXY_PORT`` and relays to the proxy's Unix socket, which lull serves
outside; ``HTTP_PROXY`` and friends point there. The command starts once the relay listens
(read from ``/proc/net/tcp``, no sleeping), and when it ends the namespace ends with
everything it left running. It stays in lull's process group (no ``--new-session``), so
stopping the group stops it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lull.tools.process.sandbox.policy import SandboxPolicy

PROXY_PORT = 3128
"""The port of the relay to lull's proxy inside the sandbox's network namespace."""

BRIDGE = (
    "socat TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:{socket} "
    "</dev/null >/dev/null 2>&1 &\n"
    'until [[ "$(</proc/net/tcp)" == *":{hex_port} 00000000:0000 0A"* ]]; do :; done\n'
    'exec "$@"'
)
"""The script that starts the relay, waits until it listens and becomes the command."""


def bridge_script(socket: Path, port: int = PROXY_PORT) -> str:
    """The shell script that relays ``port`` to the proxy at ``socket``, then runs ``$@``."""
    return BRIDGE.format(port=port, socket=socket, hex_port=f"{port:04X}")


def bwrap_argv(
    policy: SandboxPolicy,
    command: Sequence[str],
    *,
    socket: Path,
    unreadable_file: Path,
    bwrap: str = "bwrap",
) -> list[str]:
    """``bwrap`` options and ``command`` run inside ``policy``'s boundary, with the network
    relayed to the proxy at ``socket``; ``unreadable_file`` (an empty file of mode 0000 that
    no sandboxed place can change) stands in for hidden files."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent"]
    argv += ["--cap-drop", "ALL"]
    for place in policy.writable:
        if place.exists():
            argv += ["--bind", str(place), str(place)]
    for place in policy.read_only:
        if place.exists():
            argv += ["--ro-bind", str(place), str(place)]
    for place in policy.hidden:
        if place.is_dir():
            argv += ["--perms", "0000", "--tmpfs", str(place), "--remount-ro", str(place)]
        elif place.exists():
            argv += ["--ro-bind", str(unreadable_file), str(place)]
    argv += ["--chdir", str(policy.workspace), "--"]
    argv += ["bash", "-c", bridge_script(socket), "lull-sandbox", *command]
    return argv


def proxy_environment(port: int = PROXY_PORT) -> dict[str, str]:
    """The variables that send a command's HTTP(S) through the relay at ``port``."""
    url = f"http://127.0.0.1:{port}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")
    return {**dict.fromkeys(names, url), "NO_PROXY": "", "no_proxy": ""}
