"""Finding a local OpenAI-compatible server (app/catalog/local_servers.py) on loopback."""

from __future__ import annotations

import socket
import time

from app.catalog.local_servers import (
    Candidate,
    detect_local_server,
    detect_local_servers,
    parse_models,
)
from tests.fakes import FakeServer


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_server_that_lists_models_is_found(fake: FakeServer) -> None:
    fake.models = {"qwen3-coder"}
    found = detect_local_server([Candidate("Ollama", fake.url + "/v1/")])
    assert found is not None
    assert (found.name, found.base_url, found.models) == (
        f"OpenAI-compatible server on :{fake.port}",  # named by what it says, not the port
        fake.url + "/v1",
        ("qwen3-coder",),
    )
    assert found.default_model == "qwen3-coder"


def test_nothing_listening_is_not_found_quickly() -> None:
    candidates = [Candidate(f"s{i}", f"http://127.0.0.1:{_closed_port()}/v1") for i in range(3)]
    started = time.monotonic()
    assert detect_local_servers(candidates, timeout=0.3) == []
    assert time.monotonic() - started < 2.0


def test_a_server_that_does_not_speak_the_models_api_is_ignored(fake: FakeServer) -> None:
    assert detect_local_server([Candidate("x", fake.url + "/nowhere")]) is None


def test_the_models_body_is_parsed_strictly() -> None:
    assert parse_models(b'{"data": [{"id": "a"}, {"id": ""}, {"x": 1}]}') == ("a",)
    assert parse_models(b'{"object": "list"}') is None
    assert parse_models(b"<html>") is None
