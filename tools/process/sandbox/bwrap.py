"""Linux: the bubblewrap command line that runs one command inside the boundary.

The whole file system is bound read-only, then the writable places read-write over it, then
``read_only`` places read-only again, then each hidden place replaced: a directory by an
empty tmpfs that nobody may enter (mode 0000), a file by an unreadable empty file. A hidden
directory with ``readable`` places inside (``allowRead``) gets a tmpfs that may be passed
through but not listed (mode 0111) with each of those places bound into it read-only. Paths
that do not exist are skipped (a read-only file system cannot get them later anyway).

Unix sockets: a command may connect to any socket it can reach by path, whatever its network
namespace, and binding ``/`` read-only does not stop that. So each socket bound on this
machine when the command starts (``/proc/net/unix``) that the policy does not let it connect
to (:meth:`SandboxPolicy.may_connect`) is covered by the unreadable file: connecting to it
fails with "Permission denied". Sockets bound after the command started, or in another network
namespace, are not covered. Abstract sockets are per network namespace: the command's own.

The command gets new PID, IPC and network namespaces and no capabilities (also when lull
runs as root). Its network namespace has only a loopback interface: inside, ``socat``
listens on 127.0.0.1:``PROXY_PORT`` and relays to the proxy's Unix socket, which lull serves
outside; ``HTTP_PROXY`` and friends point there. The command starts once the relay listens
(read from ``/proc/net/tcp``, no sleeping), and when it ends the namespace ends with
everything it left running. It stays in lull's process group (no ``--new-session``), so
stopping the group stops it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
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
    sockets: Iterable[Path] = (),
) -> list[str]:
    """``bwrap`` options and ``command`` run inside ``policy``'s boundary, with the network
    relayed to the proxy at ``socket``; ``unreadable_file`` (an empty file of mode 0000 that
    no sandboxed place can change) stands in for hidden files and for the Unix ``sockets``
    on this machine (:func:`bound_sockets`) the command may not connect to."""
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
            inside = [path for path in policy.readable_inside(place) if path.exists()]
            argv += ["--perms", "0111" if inside else "0000", "--tmpfs", str(place)]
            for path in inside:
                argv += ["--ro-bind", str(path), str(path)]
            argv += ["--remount-ro", str(place)]
        elif place.exists():
            argv += ["--ro-bind", str(unreadable_file), str(place)]
    for path in sorted(set(sockets)):
        if path != socket and not policy.may_connect(path) and policy.is_hidden(path) is None:
            argv += ["--ro-bind", str(unreadable_file), str(path)]
    argv += ["--chdir", str(policy.workspace), "--"]
    argv += ["bash", "-c", bridge_script(socket), "lull-sandbox", *command]
    return argv


def bound_sockets(table: Path = Path("/proc/net/unix")) -> list[Path]:
    """The Unix sockets bound to a path in this network namespace (``table``: the kernel's
    list), resolved; those that are gone or are not sockets any more left out."""
    try:
        lines = table.read_text(errors="replace").splitlines()[1:]
    except OSError:
        return []
    found: dict[Path, None] = {}
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            path = Path(fields[7])
            with contextlib.suppress(OSError):
                if path.is_socket():
                    found[path.resolve()] = None
    return list(found)


LOCAL_HOSTS = "localhost,127.0.0.1,::1"
"""What a command's HTTP clients reach directly, not through the proxy, with
``allowLocalBinding``: the servers the command started itself."""


def proxy_environment(port: int = PROXY_PORT, local_binding: bool = False) -> dict[str, str]:
    """The variables that send a command's HTTP(S) through the relay at ``port`` (with
    ``local_binding``, all but requests to localhost)."""
    url = f"http://127.0.0.1:{port}"
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")
    direct = LOCAL_HOSTS if local_binding else ""
    return {**dict.fromkeys(names, url), "NO_PROXY": direct, "no_proxy": direct}
