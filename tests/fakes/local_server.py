"""A loopback HTTP server answering GETs with fixed JSON: a stand-in for a local model server.

Discovery tests use it to play what real servers say about themselves (measured shapes):

- vLLM: ``/v1/models`` entries ``owned_by: "vllm"``
- llama.cpp ``llama-server``: ``owned_by: "llamacpp"`` and a ``/props`` object with
  ``default_generation_settings``
- llama-cpp-python: ``owned_by: "me"``, the model id a GGUF file path
- Ollama: ``owned_by: "library"`` and ``/api/version`` -> ``{"version": "0.12.3"}``
- LM Studio: ``owned_by: "organization_owner"``

Any other path is a 404 with an OpenAI-style error body.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


def models_body(ids: Sequence[str], owned_by: str) -> dict[str, Any]:
    """A ``/v1/models`` body listing ``ids`` owned by ``owned_by``."""
    data = [{"id": i, "object": "model", "created": 0, "owned_by": owned_by} for i in ids]
    return {"object": "list", "data": data}


VLLM = {"/v1/models": models_body(["Qwen/Qwen3-Coder-30B"], "vllm")}
LLAMA_SERVER = {
    "/v1/models": models_body(["qwen2.5-coder-7b-q4_k_m.gguf"], "llamacpp"),
    "/props": {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1},
}
LLAMA_CPP_PYTHON = {"/v1/models": models_body(["/models/smollm2-135m.gguf"], "me")}
OLLAMA = {
    "/v1/models": models_body(["qwen3:8b", "llama3.2:3b"], "library"),
    "/api/version": {"version": "0.12.3"},
}
LM_STUDIO = {"/v1/models": models_body(["qwen2.5-7b-instruct"], "organization_owner")}
UNKNOWN = {"/v1/models": models_body(["house-model"], "someone")}


class LocalModelServer:
    """Serves ``routes`` (path -> JSON body) on 127.0.0.1 (a free port unless ``port``)."""

    def __init__(self, routes: Mapping[str, Any], port: int = 0) -> None:
        self.routes = dict(routes)
        self.requests: list[str] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                body = server.routes.get(self.path)
                status = 200 if body is not None else 404
                if body is None:
                    body = {"error": {"message": f"Unknown path {self.path}"}}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> LocalModelServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
