"""A loopback fake of the web search APIs behind ``tools.webSearch``: Brave, Tavily, SearXNG, Exa.

Each API answers at its own path with its real JSON shape and rejects what the real one
rejects: a missing or wrong key (401, or 403 for Exa), a missing query (422), a request in the
wrong method or content type (405 / 415). ``hits`` is what every search finds; ``status``
makes the next request fail with that HTTP status; ``requests`` records what came in.

    with FakeSearchApi(key="k") as api:
        HttpSearchBackend("brave", api_key="k", url=api.url("brave"))
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.fakes.server_tools import SearchHit

PATHS = {
    "brave": "/res/v1/web/search",
    "tavily": "/search",
    "exa": "/exa/search",
    "searxng": "/searxng/search",
}


@dataclass
class SearchRequest:
    """One request the fake API received."""

    api: str
    method: str
    path: str
    headers: dict[str, str]
    query: str
    body: dict[str, Any] = field(default_factory=dict)


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _shape(api: str, hits: list[SearchHit]) -> dict[str, Any]:
    """The API's answer for ``hits``."""
    if api == "brave":
        items = [{"title": h.title, "url": h.url, "description": h.snippet} for h in hits]
        return {"type": "search", "web": {"type": "search", "results": items}}
    if api == "tavily":
        items = [{"title": h.title, "url": h.url, "content": h.snippet, "score": 0.9} for h in hits]
        return {"query": "", "results": items, "response_time": 0.1}
    if api == "exa":
        items = [{"title": h.title, "url": h.url, "id": h.url, "text": h.snippet} for h in hits]
        return {"requestId": "r1", "results": items}
    items = [{"title": h.title, "url": h.url, "content": h.snippet, "engine": "x"} for h in hits]
    return {"query": "", "number_of_results": len(items), "results": items}


class FakeSearchApi:
    """The four search APIs on one loopback port."""

    def __init__(self, key: str = "test-key", hits: list[SearchHit] | None = None) -> None:
        self.key = key
        self.hits = list(hits or [])
        self.status: int | None = None
        self.reply_body: bytes | None = None
        self.requests: list[SearchRequest] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def url(self, api: str) -> str:
        """The URL of ``api``'s endpoint (SearXNG: the instance's base URL)."""
        base = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        return f"{base}/searxng" if api == "searxng" else base + PATHS[api]

    def __enter__(self) -> FakeSearchApi:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(
        self, api: str, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> Any:
        """The JSON answer to one request, or raise :class:`_Refused`."""
        if self.status is not None:
            status, self.status = self.status, None
            raise _Refused(status, "scripted failure")
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(target).query))
        body: dict[str, Any] = {}
        if api in ("tavily", "exa"):
            if method != "POST":
                raise _Refused(405, "use POST")
            if headers.get("content-type") != "application/json":
                raise _Refused(415, "Content-Type must be application/json")
            body = json.loads(raw or b"{}")
        elif method != "GET":
            raise _Refused(405, "use GET")
        self._check_key(api, headers)
        query = str(body.get("query") or params.get("q") or "")
        if not query:
            raise _Refused(422, "query is required")
        if api == "searxng" and params.get("format") != "json":
            raise _Refused(403, "format not allowed")
        self.requests.append(SearchRequest(api, method, target, headers, query, body))
        return _shape(api, self.hits)

    def _check_key(self, api: str, headers: dict[str, str]) -> None:
        given = {
            "brave": headers.get("x-subscription-token"),
            "tavily": headers.get("authorization"),
            "exa": headers.get("x-api-key"),
            "searxng": None,
        }[api]
        expected = {"brave": self.key, "tavily": f"Bearer {self.key}", "exa": self.key}
        if api in expected and given != expected[api]:
            raise _Refused(403 if api == "exa" else 401, "invalid API key")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                path = urllib.parse.urlsplit(self.path).path
                api = next((name for name, p in PATHS.items() if p == path), None)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                if api is None:
                    status, payload = 404, b'{"error": "not found"}'
                elif fake.reply_body is not None:
                    status, payload = 200, fake.reply_body
                else:
                    try:
                        data = fake.answer(api, self.command, self.path, headers, raw)
                        status, payload = 200, json.dumps(data).encode()
                    except _Refused as refused:
                        status = refused.status
                        payload = json.dumps({"error": str(refused)}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _serve
            do_POST = _serve

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
