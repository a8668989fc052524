"""Claude Code's remaining sandbox keys in the real bubblewrap sandbox: which Unix sockets a
command may reach (``network.allowUnixSockets``), servers on its own localhost
(``network.allowLocalBinding``) and files read again inside a hidden folder
(``filesystem.allowRead``)."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lull.runtime.sandbox import sandbox_policy
from lull.settings.model import (
    SandboxFilesystemSettings,
    SandboxNetworkSettings,
    SandboxSettings,
    Settings,
)
from lull.tools.base import ToolContext
from lull.tools.builtin.shell import SandboxedShellTool as ShellTool
from lull.tools.process.sandbox.probe import Availability
from lull.tools.process.sandbox.sandbox import Sandbox
from tests.loopback import FETCH, HELLO
from tests.unit.tools.process.sandbox.conftest import FAKE_KEY, Place

pytestmark = pytest.mark.usefixtures("needs_bwrap")


def confined(
    place: Place,
    availability: Availability,
    network: SandboxNetworkSettings | None = None,
    files: SandboxFilesystemSettings | None = None,
) -> ToolContext:
    """A tool context whose sandbox is drawn from these settings, as lull draws it."""
    sandbox = SandboxSettings(
        enabled=True,
        network=network or SandboxNetworkSettings(),
        filesystem=files or SandboxFilesystemSettings(),
    )
    policy = sandbox_policy(Settings(sandbox=sandbox), place.workspace, home=place.home)
    return ToolContext(
        place.workspace, place.workspace.parent / "out", sandbox=Sandbox(policy, availability)
    )


async def run(ctx: ToolContext, command: str) -> tuple[str, int]:
    out = await ShellTool().run({"command": command}, ctx)
    code = out.metadata["exit_code"]
    assert isinstance(code, int)
    return out.content, code


@pytest.fixture
def sockets() -> Iterator[tuple[Path, Path]]:
    """Two Unix sockets outside the workspace (a short folder: socket paths are short) that
    answer ``pong`` to every connection."""
    folder = Path(tempfile.mkdtemp(prefix="lull-sock-")).resolve()
    servers = []
    for name in ("agent.sock", "other.sock"):
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(folder / name))
        server.listen()
        servers.append(server)
        threading.Thread(target=_answer, args=(server,), daemon=True).start()
    try:
        yield folder / "agent.sock", folder / "other.sock"
    finally:
        for server in servers:
            server.close()
        shutil.rmtree(folder, ignore_errors=True)


def _answer(server: socket.socket) -> None:
    while True:
        try:
            connection, _ = server.accept()
        except OSError:
            return
        with connection:
            connection.sendall(b"pong")


CONNECT = (
    f'{sys.executable} -c "import socket; c = socket.socket(socket.AF_UNIX); '
    "c.connect('{path}'); print(c.recv(4).decode())\""
)


async def test_a_unix_socket_outside_the_workspace_is_unreachable_and_named(
    place: Place, availability: Availability, sockets: tuple[Path, Path]
) -> None:
    agent, _ = sockets
    content, code = await run(confined(place, availability), CONNECT.format(path=agent))
    assert code != 0 and "pong" not in content
    assert f"the command names the Unix socket {agent}" in content
    assert "sandbox.network.allowUnixSockets can allow it" in content


async def test_allow_unix_sockets_lets_a_command_reach_the_listed_one_only(
    place: Place, availability: Availability, sockets: tuple[Path, Path]
) -> None:
    agent, other = sockets
    ctx = confined(place, availability, SandboxNetworkSettings(allow_unix_sockets=(str(agent),)))
    content, code = await run(ctx, CONNECT.format(path=agent))
    assert code == 0 and "pong" in content, content
    content, code = await run(ctx, CONNECT.format(path=other))
    assert code != 0 and "pong" not in content


SERVE = """\
import http.server, threading, urllib.request
server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_port}/page.txt"
print(urllib.request.urlopen(url, timeout=10).read().decode())
"""
"""A dev server started by the command itself, on its localhost, and a request to it."""


@pytest.mark.parametrize("local_binding", [False, True])
async def test_a_server_bound_inside_is_served_inside(
    place: Place, availability: Availability, local_binding: bool
) -> None:
    (place.workspace / "serve.py").write_text(SERVE)
    (place.workspace / "page.txt").write_text("served inside")
    network = SandboxNetworkSettings(allow_local_binding=local_binding)
    content, code = await run(
        confined(place, availability, network), f"{sys.executable} serve.py 2>&1"
    )
    if local_binding:  # its HTTP client goes straight to its own localhost
        assert code == 0 and "served inside" in content, content
    else:  # bound and listening, but its HTTP client asks the proxy, which refuses the host
        assert code != 0 and "served inside" not in content
        assert "denied network access to 127.0.0.1" in content


async def test_local_binding_does_not_open_the_machines_own_localhost(
    place: Place, availability: Availability, loopback_server: int
) -> None:
    network = SandboxNetworkSettings(allow_local_binding=True)
    fetch = FETCH.format(host="127.0.0.1", port=loopback_server)
    content, code = await run(confined(place, availability, network), fetch)
    assert code != 0 and HELLO not in content  # the sandbox's localhost is its own


async def test_allow_read_reopens_one_file_of_a_hidden_folder(
    place: Place, availability: Availability
) -> None:
    (place.home / ".ssh" / "known_hosts").write_text("github.com ssh-ed25519 AAAA")
    files = SandboxFilesystemSettings(
        deny_read=(str(place.outside / "keep"),),
        allow_read=("~/.ssh/known_hosts", str(place.outside / "keep" / "file.txt")),
    )
    ctx = confined(place, availability, files=files)
    content, code = await run(ctx, f"cat ~/.ssh/known_hosts {place.outside}/keep/file.txt")
    assert code == 0 and "github.com ssh-ed25519" in content and "still here" in content
    content, code = await run(ctx, "cat ~/.ssh/id_rsa")
    assert code != 0 and FAKE_KEY not in content
    assert f"the sandbox denied access to {place.home / '.ssh' / 'id_rsa'}" in content
    content, code = await run(ctx, "ls ~/.ssh")
    assert code != 0 and "known_hosts" not in content
