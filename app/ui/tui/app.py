"""The Textual application: layout, start-up, keys and leaving.

Start-up is built for time to interactive: the screen is painted and the
prompt focused first; the runtime (settings, provider SDK, session) is built
in a thread afterwards, and anything typed meanwhile is queued. With no
provider configured, a setup panel explains what to set and offers a local
server it finds; the server chosen is saved to the user settings once it works.
When the terminal goes away (SIGHUP, a hung-up tty, a write that fails), the
turn is stopped and lull exits (129); the session is closed by :func:`run_tui`.
Everything about turns and commands lives in :mod:`chat`.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.driver import Driver
from textual.message import Message

from lull.ui.shared.completion import CommandTable, CompletionRequest, command_table, complete
from lull.ui.shared.hangup import HANGUP_EXIT, HangupWatch, detach
from lull.ui.tui.driver import TerminalLost, hangup_safe
from lull.ui.tui.widgets.completion_menu import CompletionMenu
from lull.ui.tui.widgets.conversation import Conversation
from lull.ui.tui.widgets.prompt_input import HistoryStore, PromptInput
from lull.ui.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from lull.catalog.local_servers import LocalServer
    from lull.runtime import RunOptions, Runtime
    from lull.ui.tui.boot import Builder, Fatal, Outcome
    from lull.ui.tui.chat import Chat
    from lull.ui.tui.widgets.setup_panel import SetupPanel

BENCH_ENV = "LULL_TUI_BENCH"  # a file: lull writes "paint" and "ready" times there, then exits
DOUBLE_PRESS_SECONDS = 2.0
Detector = Callable[[], "list[LocalServer]"]


class Loaded(Message):
    """The runtime build (in a thread) is over."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self.outcome = outcome


class Detected(Message):
    """The local-server search (in a thread) is over."""

    def __init__(self, servers: list[LocalServer]) -> None:
        super().__init__()
        self.servers = servers


class LullApp(App[None]):
    """lull's full-screen chat."""

    CSS_PATH = Path(__file__).with_name("lull.tcss")
    TITLE = "lull"
    BINDINGS = [  # noqa: RUF012 (Textual's class-level binding table)
        Binding("escape", "interrupt", "interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "quit", show=False, priority=True),
        Binding("ctrl+q", "quit", "quit", show=False, priority=True),
    ]

    def __init__(
        self,
        options: RunOptions,
        *,
        build: Builder | None = None,
        detect: Detector | None = None,
        history: HistoryStore | None = None,
        clock: Callable[[], float] = time.time,
        bench_file: Path | None = None,
    ) -> None:
        super().__init__()
        self.options = options
        self.workspace = options.workspace
        self._build = build
        self._detect = detect
        self._history = history
        self._clock = clock
        self._bench_file = bench_file
        self._last_ctrl_c = -DOUBLE_PRESS_SECONDS
        self._last_escape = -DOUBLE_PRESS_SECONDS
        self.fatal: Fatal | None = None
        self.setup: SetupPanel | None = None
        self._commands: CommandTable | None = None
        self._chat: Chat | None = None
        self._chosen: LocalServer | None = None  # the setup choice, saved once it works
        self._hangup: HangupWatch | None = None

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform, made safe for a terminal that goes away."""
        return hangup_safe(super().get_driver_class())

    # --- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        """Conversation on top, then the completion menu, the prompt and the status bar."""
        menu = CompletionMenu(id="completion")
        yield Conversation(id="conversation")
        yield menu
        yield PromptInput(
            history=self._history,
            completer=self._complete,
            menu=menu,
            clipboard_image=paste_clipboard_image,
            id="prompt",
        )
        yield StatusBar(self._clock, id="status")

    @property
    def prompt(self) -> PromptInput:
        """The message box."""
        return self.query_one(PromptInput)

    @property
    def status(self) -> StatusBar:
        """The status bar."""
        return self.query_one(StatusBar)

    @property
    def chat(self) -> Chat:
        """The conversation's controller (its module is imported after the first paint)."""
        if self._chat is None:
            from lull.ui.tui.chat import Chat

            conversation = self.query_one(Conversation)
            self._chat = Chat(self, conversation, self.status, self.action_quit)
        return self._chat

    def on_mount(self) -> None:
        """Focus the prompt; build the runtime once the first frame is on screen; watch
        for the terminal going away."""
        self.prompt.focus()
        self.status.change(state="starting")
        self.call_after_refresh(self._painted)
        if not self.is_headless:
            self._hangup = HangupWatch(self._terminal_gone)
            self._hangup.start()

    def _terminal_gone(self) -> None:
        self.call_later(self.hang_up)

    def on_terminal_lost(self, message: TerminalLost) -> None:
        """Writing to the terminal failed: it went away."""
        if self._hangup is not None:
            self._hangup.fire()

    async def hang_up(self) -> None:
        """The terminal is gone: stop any turn cleanly and leave (exit code 129)."""
        if self._chat is not None:
            await self._chat.shutdown()
        self.exit(return_code=HANGUP_EXIT)

    def leave_terminal(self) -> bool:
        """After the app ended: whether the terminal is gone (then its descriptors point at
        /dev/null, so nothing printed now can fail)."""
        if self._hangup is None or not self._hangup.gone():
            return False
        detach(self._hangup.ttys)
        return True

    def _painted(self) -> None:
        self._bench("paint")
        self.load()

    def _bench(self, mark: str) -> None:
        if self._bench_file is None:
            return
        with self._bench_file.open("a", encoding="utf-8") as handle:
            handle.write(f"{mark} {time.time():.6f}\n")
        if mark == "ready":
            self.exit()

    # --- start-up ---------------------------------------------------------------------

    def load(self, options: RunOptions | None = None) -> None:
        """Build a runtime in a thread (the UI stays responsive); the SDK is imported there.

        ``options`` defaults to the command line's.
        """

        def work() -> None:
            importlib.import_module("lull.ui.tui.chat")  # warm up the UI's modules off the UI
            from lull.ui.tui.boot import load

            chosen = options or self.options
            self.options = chosen
            self.post_message(Loaded(load(chosen, self._build)))

        self.run_worker(work, thread=True, group="boot", exit_on_error=False)

    async def on_loaded(self, message: Loaded) -> None:
        """Show what the runtime build gave: a ready chat, the setup panel, or a fatal error."""
        from lull.ui.tui.boot import Fatal, NeedsSetup, Ready, startup_notes

        outcome = message.outcome
        match outcome:
            case Fatal():
                self.fatal = outcome
                self.exit(return_code=outcome.code)
            case NeedsSetup(problem):
                await self._show_setup(problem)
            case Ready(runtime, context_tokens):
                if self.setup is not None:
                    await self.setup.remove()
                    self.setup = None
                    self.prompt.focus()
                notes = startup_notes(runtime)
                if self._chosen is not None:
                    notes.append(save_choice(self._chosen, runtime))
                    self._chosen = None
                await self.chat.attach(runtime, notes, context_tokens)
                self._bench("ready")
            case _:
                assert_never(outcome)

    async def _show_setup(self, problem: str) -> None:
        from lull.settings.paths import user_settings_path
        from lull.ui.tui.widgets.setup_panel import SetupPanel

        self.status.change(state="no provider configured")
        self._bench("ready")
        if self.setup is None:
            self.setup = SetupPanel(problem, user_settings_path())
            await self.query_one(Conversation).add(self.setup)

            def work() -> None:
                from lull.catalog.local_servers import detect_local_servers

                servers: list[LocalServer] = []
                try:
                    servers = (self._detect or detect_local_servers)()
                finally:  # a failed search is "nothing found", never a hang
                    self.post_message(Detected(servers))

            self.run_worker(work, thread=True, group="detect", exit_on_error=False)
        else:
            self.setup.show_problem(problem)

    async def on_detected(self, message: Detected) -> None:
        """Offer the local servers found (the first one focused: Enter uses it)."""
        if self.setup is not None:
            await self.setup.offer(message.servers)

    def on_setup_panel_use_server(self, message: SetupPanel.UseServer) -> None:
        """Rebuild the runtime against the chosen local server."""
        from lull.ui.shared.startup import with_local_server

        base = self.options
        self._chosen = message.server
        self.status.change(state=f"connecting to {message.server.name}")
        self.load(with_local_server(base, message.server.base_url, message.model))

    # --- input ------------------------------------------------------------------------

    def _complete(self, before_cursor: str, first_line: bool) -> CompletionRequest | None:
        if self._commands is None or before_cursor == "/":  # custom commands may change
            self._commands = command_table(self.workspace)
        return complete(before_cursor, first_line, self.workspace, self._commands)

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """Send (or queue) what was typed."""
        await self.chat.submit(message.text)

    async def on_prompt_input_quit_requested(self, message: PromptInput.QuitRequested) -> None:
        """Ctrl+D on an empty prompt."""
        await self.action_quit()

    # --- actions ----------------------------------------------------------------------

    def action_interrupt(self) -> None:
        """Esc: stop the running turn (partial text stays, marked interrupted); with nothing
        running, Esc twice within 2 s opens /rewind (as in Claude Code)."""
        chat = self._chat
        if chat is None or chat.interrupt() or chat.runtime is None:
            return
        now = time.monotonic()
        if now - self._last_escape < DOUBLE_PRESS_SECONDS:
            self._last_escape = -DOUBLE_PRESS_SECONDS
            self.run_worker(chat.command("/rewind"), group="command")
            return
        self._last_escape = now

    async def action_ctrl_c(self) -> None:
        """Ctrl+C: interrupt or clear the prompt; a second press within 2 s quits."""
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_PRESS_SECONDS:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        if self._chat is None or not self._chat.interrupt():
            self.prompt.clear()
        self.notify("Press Ctrl+C again to quit", timeout=DOUBLE_PRESS_SECONDS)

    async def action_quit(self) -> None:
        """Leave: stop any turn cleanly first, so the session file is consistent."""
        if self._chat is not None:
            await self._chat.shutdown()
        self.exit()

    def close_session(self) -> str | None:
        """Close the session file (after the app ended); the id to resume, if any."""
        return self._chat.close() if self._chat is not None else None


def save_choice(server: LocalServer, runtime: Runtime) -> tuple[str, str]:
    """Save the local server the user chose (and that works) to the user settings file;
    the (text, level) note that says where, or why not."""
    from lull.settings.paths import user_settings_path
    from lull.settings.writer import WriteProblem, save_settings

    config = runtime.provider_config
    values = {
        "model.provider": config.provider,
        "model.baseUrl": config.base_url,
        "model.name": config.model,
    }
    try:
        path = save_settings(values, user_settings_path())
    except WriteProblem as problem:
        return f"{problem}; {server.name} is used for this session only", "warning"
    return (
        f"saved {', '.join(values)} to {path}: lull starts with {server.name} from now on",
        "info",
    )


def bench_file_from_env() -> Path | None:
    """The benchmark hook's file (``LULL_TUI_BENCH``), if set."""
    value = os.environ.get(BENCH_ENV, "").strip()
    return Path(value) if value else None


def paste_clipboard_image() -> Path | str | None:
    """The system clipboard's image saved under the state directory (its path), None when
    the clipboard holds no image, or why it cannot be read (Ctrl+V in the prompt)."""
    from lull.settings.paths import clipboard_dir
    from lull.tools.media.clipboard import ClipboardUnavailable, save_clipboard_image

    try:
        return save_clipboard_image(clipboard_dir())
    except ClipboardUnavailable as problem:
        return str(problem)
