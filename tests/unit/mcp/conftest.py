"""Real MCP servers (``tests/mcp/server.py``) over stdio and streamable HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lull.model.mcp import McpServerConfig

ROOT = Path(__file__).resolve().parents[3]
StdioServer = Callable[..., McpServerConfig]


@pytest.fixture
def stdio_server() -> StdioServer:
    """``stdio_server(name, *flags, timeout=10, **fields)``: the config of a test server."""

    def make(
        name: str = "t", *flags: str, timeout: float = 15.0, **fields: object
    ) -> McpServerConfig:
        return McpServerConfig(
            name,
            command=sys.executable,
            args=("-m", "tests.mcp.server", *flags),
            cwd=str(ROOT),
            timeout_seconds=timeout,
            **fields,  # type: ignore[arg-type]
        )

    return make


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_url() -> Iterator[str]:
    """A streamable-HTTP test server on loopback; its URL."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.mcp.server", "--http", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
