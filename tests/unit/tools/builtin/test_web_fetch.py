from __future__ import annotations

import dataclasses
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from lull.tools.base import ToolContext, ToolError, TransientToolError
from lull.tools.builtin.web_fetch import WebFetchTool
from lull.tools.registry import ToolRegistry
from tests.unit.tools.helpers import Call

PAGES: dict[str, tuple[int, str, bytes]] = {
    "/page": (
        200,
        "text/html; charset=utf-8",
        b"<html><head><title>Docs</title><style>p{}</style></head><body>"
        b"<h1>Install</h1><p>Run <b>pip</b> install.</p><script>evil()</script>"
        b"<ul><li>one</li><li>two &amp; three</li></ul></body></html>",
    ),
    "/data.json": (200, "application/json", b'{"ok": true}'),
    "/image.png": (200, "image/png", b"\x89PNG\r\n"),
    "/big.txt": (200, "text/plain", b"word\n" * 20_000),
}


FLAKY_FAILURES: list[int] = [0]  # 503 answers the /flaky page still gives


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, content_type, body = PAGES.get(self.path, (404, "text/plain", b"missing"))
        if self.path == "/flaky":
            failing = FLAKY_FAILURES[0] > 0
            FLAKY_FAILURES[0] -= 1
            status, content_type, body = (
                (503, "text/plain", b"busy") if failing else (200, "text/plain", b"back again")
            )
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def ctx(workspace: Path, tmp_path: Path) -> ToolContext:
    """These tests fetch from a loopback server, which needs tools.allowPrivateNetwork."""
    return ToolContext(
        workspace=workspace, output_dir=tmp_path / "out", call_id="c1", allow_private_network=True
    )


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_html_is_reduced_to_readable_text(call: Call, server: str) -> None:
    out = await call("web_fetch", url=f"{server}/page")
    assert not out.is_error
    assert out.content.startswith(f"{server}/page (200, text/html)\n\n# Docs\n\nInstall\n")
    assert "Run pip install." in out.content
    assert "- two & three" in out.content
    assert "evil" not in out.content and "p{}" not in out.content


async def test_json_is_returned_as_text(call: Call, server: str) -> None:
    out = await call("web_fetch", url=f"{server}/data.json")
    assert out.content.endswith('{"ok": true}')


async def test_binary_content_is_refused(call: Call, server: str) -> None:
    out = await call("web_fetch", url=f"{server}/image.png")
    assert out.is_error and "returned image/png content, which is not text" in out.content


async def test_http_errors_are_reported(call: Call, server: str) -> None:
    out = await call("web_fetch", url=f"{server}/nope")
    assert out.is_error and out.content == f"web_fetch: {server}/nope returned HTTP 404 Not Found"


async def test_long_pages_are_capped(call: Call, ctx: ToolContext, server: str) -> None:
    out = await call(
        "web_fetch", dataclasses.replace(ctx, max_output_chars=2000), url=f"{server}/big.txt"
    )
    assert len(out.content) <= 2000
    assert "full output saved to" in out.content


async def test_unreachable_host_says_offline(call: Call) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    out = await call("web_fetch", url=url)
    assert out.is_error
    assert out.content.startswith(f"web_fetch: could not reach {url}: ")
    assert out.content.endswith("(are you offline?)")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "example.com"])
async def test_only_http_and_https_are_allowed(call: Call, url: str) -> None:
    out = await call("web_fetch", url=url)
    assert out.is_error and "is not an http:// or https:// URL" in out.content


@pytest.mark.timeout(30)  # a guard against hanging, not a measurement
async def test_silent_server_times_out_as_unreachable(ctx: ToolContext) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
        with pytest.raises(ToolError) as info:
            await WebFetchTool(timeout=0.3).run({"url": url}, ctx)
    assert "timed out after 0.3 s" in str(info.value)  # the limit given, not the default
    assert str(info.value).startswith(f"web_fetch: could not reach {url}: ")
    assert str(info.value).endswith("(are you offline?)")


class Waits:
    """A sleep that only records how long it was asked to wait."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


async def test_a_5xx_is_retried_with_backoff_before_it_is_an_error(
    ctx: ToolContext, server: str
) -> None:
    waits = Waits()
    registry = ToolRegistry([WebFetchTool()], sleep=waits)
    FLAKY_FAILURES[0] = 2
    out = await registry.execute("web_fetch", {"url": f"{server}/flaky"}, ctx)
    assert not out.is_error and "back again" in out.content
    assert waits.seconds == [1.0, 2.0]

    FLAKY_FAILURES[0] = 9
    out = await registry.execute("web_fetch", {"url": f"{server}/flaky"}, ctx)
    assert out.is_error
    assert out.content == (
        f"web_fetch: {server}/flaky returned HTTP 503 Service Unavailable "
        "(tried 4 times, waiting 1 s, 2 s, 4 s)"
    )
    FLAKY_FAILURES[0] = 0


async def test_a_4xx_or_a_refused_connection_is_not_retried(ctx: ToolContext, server: str) -> None:
    waits = Waits()
    registry = ToolRegistry([WebFetchTool()], sleep=waits)
    assert (await registry.execute("web_fetch", {"url": f"{server}/nope"}, ctx)).is_error
    refused = f"http://127.0.0.1:{closed_port()}/"
    assert (await registry.execute("web_fetch", {"url": refused}, ctx)).is_error
    assert waits.seconds == []


async def test_a_timeout_is_transient(ctx: ToolContext) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
        with pytest.raises(TransientToolError):
            await WebFetchTool(timeout=0.2).run({"url": url}, ctx)
