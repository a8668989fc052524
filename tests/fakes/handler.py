"""The HTTP layer: routing, auth/model gates, JSON and chunked SSE writing, journaling."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tests.fakes.anthropic_api import handle_count_tokens, handle_messages
from tests.fakes.errors import WireError, anthropic_error_body, bad_request, openai_error_body
from tests.fakes.openai_api import handle_chat
from tests.fakes.outcome import Outcome, new_id
from tests.fakes.request_text import parse_request
from tests.fakes.script import HOLD_SECONDS

if TYPE_CHECKING:
    from tests.fakes.server import FakeServer, _Httpd

#: An endpoint: the fake, the request body, and the text each message was sent as (None when
#: the body was parsed without them).
Handler = Callable[["FakeServer", dict[str, Any], Sequence[str] | None], Outcome]
DEFAULT_MODELS = ("claude-sonnet-5", "gpt-4o")


def classify(path: str, headers: dict[str, str]) -> str:
    """Which API a request speaks: "openai" or "anthropic"."""
    if path.startswith("/v1/chat/") or path.startswith("/chat/"):
        return "openai"
    if path.startswith("/v1/messages"):
        return "anthropic"
    return "anthropic" if "anthropic-version" in headers else "openai"


def _api_key(headers: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    return headers.get("x-api-key") or None


def _check_auth(fake: FakeServer, api: str, headers: dict[str, str]) -> None:
    key = _api_key(headers)
    if key is None:
        if api == "anthropic":
            raise WireError(
                401, "Missing API key: send an x-api-key or Authorization: Bearer header"
            )
        raise WireError(
            401,
            "You didn't provide an API key. You need to provide your API key in an Authorization "
            "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        )
    if fake.api_key is not None and key != fake.api_key:
        if api == "anthropic":
            raise WireError(401, "invalid x-api-key")
        raise WireError(401, f"Incorrect API key provided: {key[:3]}***.")


def _check_model(fake: FakeServer, api: str, body: dict[str, Any]) -> None:
    model = body.get("model")
    if fake.models is None or not isinstance(model, str) or model in fake.models:
        return
    if api == "anthropic":
        raise WireError(404, f"model: {model}")
    message = f"The model `{model}` does not exist or you do not have access to it."
    raise WireError(404, message, code="model_not_found")


def _list_models(fake: FakeServer, api: str) -> Outcome:
    names = sorted(fake.models) if fake.models is not None else list(DEFAULT_MODELS)
    if api == "anthropic":
        created = "2025-01-01T00:00:00Z"
        models: list[dict[str, Any]] = [
            {"type": "model", "id": n, "display_name": n, "created_at": created} for n in names
        ]
        body = {"data": models, "has_more": False, "first_id": names[0] if names else None}
        return Outcome(200, body={**body, "last_id": names[-1] if names else None})
    models = [{"id": n, "object": "model", "created": 0, "owned_by": "fake"} for n in names]
    return Outcome(200, body={"object": "list", "data": models})


ROUTES: dict[tuple[str, str], Handler] = {
    ("POST", "/v1/messages"): handle_messages,
    ("POST", "/v1/messages/count_tokens"): handle_count_tokens,
    ("POST", "/v1/chat/completions"): handle_chat,
}


def dispatch(
    fake: FakeServer,
    method: str,
    path: str,
    headers: dict[str, str],
    body: dict[str, Any],
    texts: Sequence[str] | None = None,
) -> Outcome:
    """Run the gates (fault, auth, model) and the endpoint; raises WireError for errors."""
    api = classify(path, headers)
    handler = ROUTES.get((method, path))
    if handler is None and not (method == "GET" and path == "/v1/models"):
        hint = " (the OpenAI base_url must end in /v1)" if path.startswith("/chat/") else ""
        raise WireError(404, f"Unknown endpoint {method} {path}{hint}", code="unknown_url")
    if handler is not None and path in ("/v1/messages", "/v1/chat/completions"):
        failure = fake.faults.take_failure()
        if failure is not None:
            raise failure.to_error()
    _check_auth(fake, api, headers)
    if handler is None:
        return _list_models(fake, api)
    _check_model(fake, api, body)
    return handler(fake, body, texts)


def error_outcome(api: str, err: WireError, request_id: str) -> Outcome:
    """The JSON error response for ``err`` in ``api``'s shape."""
    body = anthropic_error_body(err, request_id) if api == "anthropic" else openai_error_body(err)
    return Outcome(err.status, headers=dict(err.headers), body=body, error=err.message)


def parse_body(raw: bytes, method: str) -> dict[str, Any]:
    """The request JSON object (``{}`` for an empty GET)."""
    if method == "GET" and not raw:
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise bad_request(f"Request body is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise bad_request("Request body must be a JSON object")
    return body


class FakeHandler(BaseHTTPRequestHandler):
    """Serves one connection for a FakeServer (HTTP/1.1; streams close the connection)."""

    protocol_version = "HTTP/1.1"
    server: _Httpd

    def setup(self) -> None:
        """Disable Nagle so each SSE frame leaves immediately."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the journal is the log."""

    def do_GET(self) -> None:
        """Serve a GET."""
        self._serve("GET")

    def do_POST(self) -> None:
        """Serve a POST."""
        self._serve("POST")

    def _serve(self, method: str) -> None:
        from tests.fakes.server import JournalEntry

        fake = self.server.fake
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        raw = self.rfile.read(int(headers.get("content-length") or 0))
        api = classify(path, headers)
        request_id = new_id("req_")
        body: dict[str, Any] = {}
        try:
            parsed = parse_request(raw, fake.recent_messages) if method == "POST" else None
            body, texts = parsed if parsed is not None else (parse_body(raw, method), None)
            outcome = dispatch(fake, method, path, headers, body, texts)
        except WireError as err:
            outcome = error_outcome(api, err, request_id)
        outcome.headers["request-id" if api == "anthropic" else "x-request-id"] = request_id
        entry = JournalEntry(api, path, headers, body, outcome.status, outcome.error, outcome.usage)
        fake.record(entry)
        try:
            if outcome.frames is None:
                self._send_json(outcome)
            else:
                self._send_stream(outcome)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _send_json(self, outcome: Outcome) -> None:
        data = json.dumps(outcome.body).encode()
        self.send_response(outcome.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in outcome.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, outcome: Outcome) -> None:
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", outcome.content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        for name, value in outcome.headers.items():
            self.send_header(name, value)
        self.end_headers()
        frames = outcome.frames or []
        if outcome.hold is not None:
            self.wfile.flush()
            outcome.hold.wait(HOLD_SECONDS)
        if outcome.first_delay:
            self.wfile.flush()
            time.sleep(outcome.first_delay)
        limit = len(frames) if outcome.cut_after is None else outcome.cut_after
        for frame in frames[:limit]:
            self._chunk(frame)
            if outcome.frame_delay:
                self.wfile.flush()
                time.sleep(outcome.frame_delay)
        if outcome.cut_after is not None and outcome.error_frame is None:
            self.connection.shutdown(socket.SHUT_RDWR)  # no terminating chunk: a broken stream
            return
        if outcome.error_frame is not None:
            self._chunk(outcome.error_frame)
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
