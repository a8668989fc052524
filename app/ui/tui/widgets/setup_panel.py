"""First run: no provider is configured, so show how to set one up.

The panel lists the environment variables and settings keys, and offers a
local OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp, ...) if one
answers on 127.0.0.1 — as the default choice, one button press away. The app
saves the choice to the user settings once it works.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Button, Static

from lull.catalog.local_servers import CANDIDATES, LocalServer
from lull.model.text import terminal_text
from lull.ui.shared.startup import setup_hints

SEARCHING = "Looking for a local model server on 127.0.0.1 ({})…".format(
    ", ".join(f":{c.port} {c.usual}" for c in CANDIDATES)
)
NONE_FOUND = "No local model server answered on 127.0.0.1 (ports {}).".format(
    ", ".join(c.port for c in CANDIDATES)
)


def server_label(server: LocalServer) -> str:
    """The button text offering ``server``."""
    model = server.default_model
    with_model = f" with model {model}" if model else " (it lists no model; set --model)"
    return f"Use {server.name} at {server.base_url}{with_model}"


class SetupPanel(Vertical):
    """Explains what to configure; emits :class:`UseServer` when a local server is chosen."""

    DEFAULT_CSS = """
    SetupPanel {
        height: auto;
        margin: 1 0;
        padding: 1 2;
        border: round $warning;
        border-title-color: $warning;
    }
    SetupPanel > .setup-problem { color: $warning; margin: 0 0 1 0; }
    SetupPanel > .setup-hints { margin: 0 0 1 0; }
    SetupPanel > .setup-local { color: $text-muted; }
    SetupPanel > Button { margin: 1 0 0 0; width: auto; max-width: 100%; }
    """

    class UseServer(Message):
        """The user chose a local server (and model) to work with."""

        def __init__(self, server: LocalServer, model: str | None) -> None:
            super().__init__()
            self.server = server
            self.model = model

    def __init__(self, problem: str, settings_file: Path) -> None:
        super().__init__()
        self.problem = problem
        self.settings_file = settings_file
        self.servers: list[LocalServer] = []
        self.border_title = "set up a model provider"

    def compose(self) -> ComposeResult:
        """The problem, the hints, and the local-server search line."""
        problem = Text(terminal_text(self.problem))
        yield Static(problem, classes="setup-problem", id="setup-problem", markup=False)
        hints = "\n".join(setup_hints(self.settings_file))
        yield Static(Text(hints), classes="setup-hints", markup=False)
        yield Static(Text(SEARCHING), classes="setup-local", id="setup-local", markup=False)

    def show_problem(self, problem: str) -> None:
        """Replace the problem line (e.g. the chosen server did not work either)."""
        self.problem = problem
        self.query_one("#setup-problem", Static).update(Text(terminal_text(problem)))
        for button in self.query(Button):
            button.disabled = False

    async def offer(self, servers: list[LocalServer]) -> None:
        """Show what the local search found: a button per server, the first one focused."""
        self.servers = servers
        line = self.query_one("#setup-local", Static)
        if not servers:
            line.update(Text(NONE_FOUND))
            return
        names = terminal_text(", ".join(s.name for s in servers))  # names a server sent
        line.update(Text(f"Found on this machine: {names}. Press Enter to use the first one:"))
        buttons = [
            Button(server_label(s), variant="primary" if i == 0 else "default", id=f"use-{i}")
            for i, s in enumerate(servers)
        ]
        await self.mount_all(buttons)
        buttons[0].focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Turn a button press into a UseServer message."""
        event.stop()
        for button in self.query(Button):
            button.disabled = True  # one choice at a time; a failure re-enables them
        index = int((event.button.id or "use-0").removeprefix("use-"))
        server = self.servers[index]
        self.post_message(self.UseServer(server, server.default_model))
