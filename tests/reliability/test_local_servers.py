"""Local model servers: their models cost $0 and the server's own model is used when
none is named; first-run detection scans the usual ports, names each server by what it says
and saves the choice to the user's settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button

from lull.catalog.local_servers import CANDIDATES, Candidate, detect_local_servers, probe
from lull.catalog.pricing import cost_usd
from lull.model.provider import Usage
from lull.ui.tui.widgets.notice_line import NoticeLine
from tests.fakes import FakeServer, Reply
from tests.fakes.local_server import (
    LLAMA_CPP_PYTHON,
    LLAMA_SERVER,
    OLLAMA,
    UNKNOWN,
    VLLM,
    LocalModelServer,
)
from tests.reliability.helpers import (
    print_mode,
)
from tests.tui.harness import make_app, ready, until

# --- priced $0, their own model used --------------------------------------------------------------


def test_an_unpriced_model_on_a_local_server_costs_nothing(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(Reply(text="ok"))
    _, out, _ = print_mode(capsys, workspace, model="house-model")
    assert json.loads(out)["cost_usd"] == 0.0  # was None: "price unknown" forever
    # a local server answering under a known API name is still the user's own hardware
    anthropic_env.script(Reply(text="ok"))
    _, out, _ = print_mode(capsys, workspace, model="claude-sonnet-4-5")
    assert json.loads(out)["cost_usd"] == 0.0
    usage = Usage(input=1_000_000, output=1_000_000)
    assert cost_usd(usage, "house-model", ("house-model=1/2",), local=True) == 3.0
    assert cost_usd(usage, "house-model") is None  # elsewhere, unknown is unknown


@pytest.fixture
def openai_env(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    """An OpenAI-compatible server without a default model (the fake), no key."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url + "/v1")
    return fake


def test_without_a_model_the_servers_only_model_is_used(
    openai_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_env.models = {"solo-7b"}
    openai_env.script(Reply(text="hello from solo"))
    code, out, err = print_mode(capsys, workspace, "text")
    assert code == 0 and out.strip() == "hello from solo"
    assert openai_env.requests[-1]["model"] == "solo-7b"
    assert f"using model solo-7b, the only one the server at {openai_env.url}/v1 serves" in err


def test_without_a_model_several_are_listed_with_how_to_choose(
    openai_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_env.models = {"qwen3:8b", "llama3.2:3b"}
    code, out, err = print_mode(capsys, workspace, "text")
    assert code == 1 and out == ""
    assert "serves 2 models: llama3.2:3b, qwen3:8b; choose one with -m NAME" in err
    assert not openai_env.requests


# --- first-run detection --------------------------------------------------------------------------


def test_detection_scans_8080_and_names_servers_by_what_they_say() -> None:
    assert "http://127.0.0.1:8080/v1" in [c.base_url for c in CANDIDATES]
    for routes, name in [
        (LLAMA_CPP_PYTHON, "llama-cpp-python"),  # on 8000, and not vLLM
        (VLLM, "vLLM"),
        (LLAMA_SERVER, "llama.cpp server"),
        (OLLAMA, "Ollama"),
    ]:
        with LocalModelServer(routes) as server:
            found = probe(Candidate("vLLM", server.base_url), timeout=10.0)
            assert found is not None and found.name == name
    with LocalModelServer(UNKNOWN) as server:
        found = probe(Candidate("vLLM", server.base_url), timeout=10.0)
        assert found is not None and found.name == f"OpenAI-compatible server on :{server.port}"


async def test_the_chosen_server_is_saved_to_the_user_settings(
    fake: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    user_file = isolated_env / "config" / "lull" / "settings.json"
    user_file.parent.mkdir(parents=True)
    user_file.write_text('{"model": {"thinking": false}, "maxTurns": 7}\n')
    fake.models = {"llama3"}
    local = Candidate("Ollama", fake.url + "/v1")
    app = make_app(workspace, detect=lambda: detect_local_servers([local], timeout=10.0))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.focused, Button), "the offer")
        await pilot.press("enter")
        await ready(pilot)
        await until(pilot, lambda: "saved model.provider" in _notes(app), "the saved note")
        assert str(user_file) in _notes(app)
    assert json.loads(user_file.read_text()) == {
        "model": {
            "thinking": False,
            "provider": "openai",
            "baseUrl": fake.url + "/v1",
            "name": "llama3",
        },
        "maxTurns": 7,
    }
    assert not (workspace / ".lull").exists()


def _notes(app: Any) -> str:
    return "\n".join(line.text for line in app.query(NoticeLine))
