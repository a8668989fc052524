"""A loopback HTTP server that says hello, and the shell command that fetches from it: what
the sandbox tests reach through (or are refused by) lull's domain proxy."""

from __future__ import annotations

import http.server
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

HELLO = "hello from loopback"
FETCH = (
    f'{sys.executable} -c "import urllib.request as u; '
    "print(u.urlopen('http://{host}:{port}/', timeout=10).read().decode())\""
)
"""A command that prints what ``http://HOST:PORT/`` answers (``FETCH.format(host=, port=)``)."""


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = HELLO.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@contextmanager
def hello_server() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 that answers every GET with :data:`HELLO`; its port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
