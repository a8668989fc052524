"""A short smoke test against a real local OpenAI-compatible server (llama.cpp, Ollama, …).

Only ``make smoke`` runs it: the ``smoke`` marker is deselected in every other run (``make
test`` never touches a real server), and it skips unless ``LULL_SMOKE_BASE_URL`` (or
``OPENAI_BASE_URL``) names a server, e.g. ``http://127.0.0.1:8080/v1``. The model is
``LULL_SMOKE_MODEL`` (else ``LULL_MODEL``, else the first one the server lists). The
variables are read at import, before the suite's isolation fixture hides them.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from lull.model.messages import Message, Text, ToolCall, ToolResult, user_text
from lull.model.provider import Completed, ModelRequest
from lull.providers.config import ProviderConfig, create_provider
from tests.e2e.conftest import lull_command

BASE_URL = os.environ.get("LULL_SMOKE_BASE_URL") or os.environ.get("OPENAI_BASE_URL") or ""
API_KEY = os.environ.get("OPENAI_API_KEY") or "local"
CHOSEN_MODEL = os.environ.get("LULL_SMOKE_MODEL") or os.environ.get("LULL_MODEL") or ""
TIMEOUT = float(os.environ.get("LULL_SMOKE_TIMEOUT", "600"))

pytestmark = [
    pytest.mark.smoke,
    pytest.mark.timeout(TIMEOUT),
    pytest.mark.skipif(not BASE_URL, reason="set LULL_SMOKE_BASE_URL to a local server's /v1 URL"),
]


@pytest.fixture(scope="module")
def model() -> str:
    """The model to ask: the chosen one, or the first the server lists."""
    if CHOSEN_MODEL:
        return CHOSEN_MODEL
    request = urllib.request.Request(
        BASE_URL.rstrip("/") + "/models", headers={"Authorization": f"Bearer {API_KEY}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # loopback, by choice
        listed = json.load(response)["data"]
    assert listed, f"{BASE_URL}/models lists no model; set LULL_SMOKE_MODEL"
    return str(listed[0]["id"])


def lull(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the real binary against the server, in ``workspace`` with its own home."""
    home = workspace.parent / "home"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "OPENAI_BASE_URL": BASE_URL,
        "OPENAI_API_KEY": API_KEY,
    }
    return subprocess.run(
        [*lull_command(), *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_a_one_shot_answer_and_a_continued_session(workspace: Path, model: str) -> None:
    first = lull(
        workspace, "-p", "Reply with one word: ready", "-m", model, "--output-format", "json"
    )
    assert first.returncode == 0, first.stderr
    payload = json.loads(first.stdout)
    assert payload["result"].strip(), payload
    assert isinstance(payload["usage_reported"], bool)
    again = lull(workspace, "-c", "-p", "And once more, one word.", "-m", model)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip()


async def test_a_history_with_a_textless_tool_call_is_accepted(model: str) -> None:
    config = ProviderConfig("openai", model, API_KEY, BASE_URL.rstrip("/"), "generic")
    provider = create_provider(config)
    call = ToolCall("call_1", "list_directory", {"path": "."})
    history = [
        user_text("What is in this directory?"),
        Message("assistant", (call,)),
        Message("user", (ToolResult("call_1", "list_directory", "README.md\nsrc/"),)),
        user_text("Answer in one short sentence."),
    ]
    request = ModelRequest(system="You are terse.", messages=history, max_output_tokens=64)
    events = [event async for event in provider.stream(request)]
    await provider.aclose()
    done = events[-1]
    assert isinstance(done, Completed)
    assert any(isinstance(part, Text) for part in done.parts) or done.stop_reason == "max_tokens"
