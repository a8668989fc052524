"""Finding a local OpenAI-compatible server (app/catalog/local_servers.py) on loopback."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from lull.catalog.local_servers import (
    CANDIDATES,
    Candidate,
    ModelListError,
    detect_local_server,
    detect_local_servers,
    is_local_url,
    list_models,
    parse_models,
    probe,
)
from tests.audit import connected_ports, network_attempts
from tests.fakes import FakeServer
from tests.fakes.local_server import (
    LLAMA_CPP_PYTHON,
    LLAMA_SERVER,
    LM_STUDIO,
    OLLAMA,
    UNKNOWN,
    VLLM,
    LocalModelServer,
)


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


def test_nothing_listening_is_not_found_and_each_candidate_is_tried_once() -> None:
    ports = [_closed_port() for _ in range(3)]
    candidates = [Candidate(f"s{i}", f"http://127.0.0.1:{port}/v1") for i, port in enumerate(ports)]
    with network_attempts() as attempts:
        assert detect_local_servers(candidates, timeout=0.3) == []
    assert sorted(connected_ports(attempts)) == sorted(ports)  # refused at once, no retry


def test_a_server_that_does_not_speak_the_models_api_is_ignored(fake: FakeServer) -> None:
    assert detect_local_server([Candidate("x", fake.url + "/nowhere")]) is None


def test_the_models_body_is_parsed_strictly() -> None:
    assert parse_models(b'{"data": [{"id": "a"}, {"id": ""}, {"x": 1}]}') == ("a",)
    assert parse_models(b'{"object": "list"}') is None
    assert parse_models(b"<html>") is None


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://100.101.102.103:8000/v1", True),  # a tailnet (CGNAT range)
        ("http://gpu-box:8000/v1", True),  # a single-label name is on the local network
        ("http://studio.local:1234/v1", True),
        ("http://host.docker.internal:4000", True),
        ("https://api.openai.com/v1", False),
        ("https://api.deepseek.com", False),
        ("http://8.8.8.8/v1", False),
        ("not a url", False),
        (None, False),
    ],
)
def test_local_urls(url: str | None, local: bool) -> None:
    assert is_local_url(url) is local


def test_every_well_known_port_is_scanned() -> None:
    ports = [c.port for c in CANDIDATES]
    assert ports == ["11434", "1234", "8000", "8080"]


@pytest.mark.parametrize(
    ("routes", "name"),
    [
        (VLLM, "vLLM"),
        (LLAMA_SERVER, "llama.cpp server"),
        (LLAMA_CPP_PYTHON, "llama-cpp-python"),
        (OLLAMA, "Ollama"),
        (LM_STUDIO, "LM Studio"),
    ],
)
def test_a_server_is_named_by_what_it_says(routes: dict[str, Any], name: str) -> None:
    with LocalModelServer(routes) as server:
        found = probe(Candidate("whoever usually listens there", server.base_url), timeout=2.0)
    assert found is not None and found.name == name
    assert found.models == tuple(m["id"] for m in routes["/v1/models"]["data"])


def test_a_server_that_says_nothing_about_itself_is_named_neutrally() -> None:
    with LocalModelServer(UNKNOWN) as server:
        found = probe(Candidate("vLLM", server.base_url), timeout=2.0)
        assert found is not None
        assert found.name == f"OpenAI-compatible server on :{server.port}"
        assert server.requests == ["/v1/models", "/api/version", "/props"]


def test_list_models_asks_the_server_and_says_why_not() -> None:
    with LocalModelServer(OLLAMA) as server:
        assert list_models(server.base_url, "key") == ("qwen3:8b", "llama3.2:3b")
        with pytest.raises(ModelListError, match="HTTP 404"):
            list_models(server.base_url + "/nowhere")
    with pytest.raises(ModelListError, match="no answer"):
        list_models(f"http://127.0.0.1:{_closed_port()}/v1", timeout=0.5)
