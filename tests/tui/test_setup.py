"""First run with no provider configured: lull starts anyway and shows how to set one up."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from lull.catalog.local_servers import Candidate, detect_local_servers
from lull.ui.tui.widgets.assistant_message import AssistantMessage
from lull.ui.tui.widgets.setup_panel import NONE_FOUND, SetupPanel
from tests.fakes import FakeServer
from tests.tui.harness import idle, make_app, ready, rendered, send, until


def _panel_text(panel: SetupPanel) -> str:
    return "\n".join(rendered(w) for w in panel.query("Static"))


async def test_the_setup_panel_explains_what_to_set(fake: FakeServer, workspace: Path) -> None:
    app = make_app(workspace, detect=lambda: [])
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.setup is not None, "the setup panel")
        panel = app.setup
        assert panel is not None
        await until(pilot, lambda: NONE_FOUND in _panel_text(panel), "the local search result")
        text = _panel_text(panel)
        for hint in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "model.provider"):
            assert hint in text
        assert "lull --demo" in text, "the way to try lull without a key"
        assert "ports 11434, 1234, 8000, 8080" in text
        assert "no provider configured" in app.status.line
        assert not panel.query(Button)
        await send(pilot, "hello?")
        assert app.chat.queue, "a message typed during setup waits for a provider"


async def test_a_local_server_found_is_offered_and_used(fake: FakeServer, workspace: Path) -> None:
    fake.models = {"qwen3-coder", "llama3"}
    local = Candidate("Ollama", fake.url + "/v1")
    app = make_app(workspace, detect=lambda: detect_local_servers([local], timeout=10.0))
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.focused, Button), "the offer, focused")
        button = app.query_one(Button)
        label = f"Use OpenAI-compatible server on :{fake.port} at {fake.url}/v1 with model llama3"
        assert label in str(button.label)  # the fake says nothing about what it is
        await pilot.press("enter")
        await ready(pilot)
        assert app.setup is None
        runtime = app.chat.runtime
        assert runtime is not None and runtime.provider_config.provider == "openai"
        assert runtime.provider_config.base_url == fake.url + "/v1"
        await send(pilot, "hi local")
        await idle(pilot)
        assert app.query_one(AssistantMessage).text == "(fake) You said: hi local"
    assert fake.requests[-1]["model"] == "llama3"
