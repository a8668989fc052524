"""The proxy a sandboxed command's network goes through: it admits only allowed domains.

It speaks the two forms of HTTP proxying every client uses: ``CONNECT host:port`` (HTTPS
and any other TCP) and a request with an absolute URL (``GET http://host/path``). A host
the sandbox admits (:meth:`DomainProxy.admits`, which may ask the user about a new one) is
connected to and the bytes are relayed both ways; any other gets ``403`` with a line
saying why, and is recorded in :attr:`DomainProxy.denied` so that the command's result can
name it. It serves a Unix socket (Linux: the relay inside the sandbox connects to it) or a
port on 127.0.0.1 (macOS: the profile allows only that port).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

HEAD_LIMIT = 64 * 1024
"""The longest request head the proxy reads."""
CHUNK = 65536

Admits = Callable[[str], Awaitable[bool]]
"""Whether a command may reach a host (may ask the user)."""


def refusal(host: str) -> bytes:
    """The ``403`` answer for a host the sandbox does not admit."""
    text = (
        f"lull sandbox: {host} is not in sandbox.network.allowedDomains; ask the user to allow it\n"
    )
    body = text.encode()
    head = (
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def target_of(request_line: str) -> tuple[str, str, int, str] | None:
    """``(method, host, port, origin-form path)`` of a proxy request line; None if it is
    not one (``CONNECT`` has an empty path)."""
    parts = request_line.split()
    if len(parts) != 3:
        return None
    method, target, _version = parts
    if method.upper() == "CONNECT":
        host, _, port = target.rpartition(":")
        if not host or not port.isdigit():
            return None
        return method.upper(), host.strip("[]"), int(port), ""
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        return None
    path = url.path or "/"
    if url.query:
        path = f"{path}?{url.query}"
    try:
        number = url.port or 80
    except ValueError:
        return None
    return method, url.hostname, number, path


def _origin_head(head: bytes, method: str, path: str) -> bytes:
    """The request head as the server should see it: origin-form, no proxy headers."""
    lines = head.decode("latin-1").split("\r\n")
    version = lines[0].split()[-1]
    kept = [line for line in lines[1:] if not line.lower().startswith("proxy-")]
    return "\r\n".join([f"{method} {path} {version}", *kept]).encode("latin-1")


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy ``reader`` to ``writer`` until EOF, then close the writing side."""
    with contextlib.suppress(ConnectionError, OSError):
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
    with contextlib.suppress(ConnectionError, OSError, RuntimeError):
        if writer.can_write_eof():
            writer.write_eof()


class DomainProxy:
    """One command's proxy: admits hosts by ``admits``, records the refused ones."""

    def __init__(self, admits: Admits) -> None:
        self.admits = admits
        self.denied: list[str] = []
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def serve_unix(self, path: Path) -> None:
        """Listen on the Unix socket ``path``."""
        self._server = await asyncio.start_unix_server(self._accept, path=str(path))

    async def serve_loopback(self) -> int:
        """Listen on a free port of 127.0.0.1; the port."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        """Stop listening and drop the connections still open."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer one client: refuse, or connect and relay."""
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > HEAD_LIMIT:
            return
        target = target_of(head.split(b"\r\n", 1)[0].decode("latin-1"))
        if target is None:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
            await writer.drain()
            return
        method, host, port, path = target
        if not await self.admits(host):
            if host not in self.denied:
                self.denied.append(host)
            writer.write(refusal(host))
            await writer.drain()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError as error:
            line = f"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n{error}\n"
            writer.write(line.encode())
            await writer.drain()
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await writer.drain()
        else:
            upstream_writer.write(_origin_head(head, method, path))
        try:
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        finally:
            upstream_writer.close()
