"""The message box: multi-line, Enter sends, history on Up/Down, completion on the fly.

Keys: Enter sends; Shift+Enter or Ctrl+J adds a newline; Up on the first line
and Down on the last line walk the input history (kept across sessions);
while the completion menu is open, Up/Down choose, Tab/Enter accept, Esc
closes; Ctrl+D on an empty box asks to quit; Ctrl+V puts an image on the system
clipboard in as the path of its saved copy (attached when the message is sent), else
pastes as Textual does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from lull.ui.shared.completion import CompletionRequest
from lull.ui.tui.widgets.completion_menu import CompletionMenu

PLACEHOLDER = "Message lull — Enter sends, Shift+Enter/Ctrl+J newline, / commands, @ files"
NEWLINE_KEYS = frozenset({"shift+enter", "ctrl+j"})

Completer = Callable[[str, bool], CompletionRequest | None]
ClipboardImage = Callable[[], Path | str | None]
"""Saves the system clipboard's image: its path, None (no image), or why it cannot be read."""


class HistoryStore(Protocol):
    """What the prompt needs from the input history (``lull.ui.shared.history.History``)."""

    def entries(self) -> list[str]:
        """Past inputs, oldest first."""
        ...

    def append(self, entry: str) -> None:
        """Remember an input."""
        ...


class PromptInput(TextArea):
    """A TextArea that sends on Enter and knows history and completion."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        margin: 0 1;
        border: round $primary;
    }
    PromptInput:focus { border: round $accent; }
    """

    class Submitted(Message):
        """The user sent ``text``."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class QuitRequested(Message):
        """Ctrl+D on an empty input."""

    def __init__(
        self,
        *,
        history: HistoryStore | None = None,
        completer: Completer | None = None,
        menu: CompletionMenu | None = None,
        clipboard_image: ClipboardImage | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            placeholder=PLACEHOLDER,
            compact=True,
        )
        self.input_history = history
        self.completer = completer
        self.menu = menu
        self.clipboard_image = clipboard_image
        self._clipboard_said = False  # why the clipboard cannot be read: said once
        self._browse: int | None = None  # index into history entries while browsing
        self._draft = ""
        self._recalled: str | None = None  # text put in the box from the history

    # --- keys -----------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        handled = self._menu_key(event.key) or self._own_key(event.key)
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _menu_key(self, key: str) -> bool:
        if self.menu is None or not self.menu.is_open:
            return False
        if key in ("up", "down"):
            self.menu.move(-1 if key == "up" else 1)
        elif key in ("tab", "enter"):
            self.accept_completion()
        elif key == "escape":
            self.menu.close()
        else:
            return False
        return True

    def _own_key(self, key: str) -> bool:
        if key == "enter":
            self.submit()
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "ctrl+d" and not self.text:
            self.post_message(self.QuitRequested())
        elif key in ("up", "down") and self._at_edge(key):
            return self._history_step(-1 if key == "up" else 1)
        elif key == "tab" and self.text:
            self.update_completion()
            if self.menu is not None and self.menu.is_open:
                self.accept_completion()
        else:
            return False
        return True

    def _at_edge(self, key: str) -> bool:
        """Whether the cursor is on the first line (for up) or the last line (for down)."""
        row = self.cursor_location[0]
        return row == 0 if key == "up" else row == self.document.line_count - 1

    def action_paste(self) -> None:
        """Ctrl+V: a clipboard image goes in as its saved file's path; else Textual's paste."""
        if self.clipboard_image is None or self.read_only:
            super().action_paste()
            return
        self.run_worker(self._paste_clipboard(self.clipboard_image), group="paste")

    async def _paste_clipboard(self, clipboard_image: ClipboardImage) -> None:
        """Read the clipboard in a thread (a reader tool may be slow), then paste."""
        found = await asyncio.to_thread(clipboard_image)
        if isinstance(found, Path):
            row, column = self.cursor_location
            before = self.document.get_line(row)[:column]
            text = f'"{found}"' if " " in str(found) else str(found)
            self.insert(("" if not before or before[-1].isspace() else " ") + text + " ")
            return
        if isinstance(found, str) and not self._clipboard_said:
            self._clipboard_said = True
            self.notify(found, title="clipboard", severity="warning")
        TextArea.action_paste(self)

    # --- sending --------------------------------------------------------------------------

    def submit(self) -> None:
        """Send the text (blank input is ignored) and remember it in the history."""
        text = self.text
        if not text.strip():
            return
        if self.input_history is not None:
            self.input_history.append(text)
        self._browse = None
        self.clear()
        self.post_message(self.Submitted(text))

    # --- history --------------------------------------------------------------------------

    def _history_step(self, step: int) -> bool:
        """Show the previous (-1) or next (+1) history entry; False if there is none."""
        entries = self.input_history.entries() if self.input_history is not None else []
        if not entries:
            return False
        if self._browse is None:
            if step > 0:
                return False
            self._draft = self.text
            index = len(entries) - 1
        else:
            index = self._browse + step
        if index < 0:
            return True  # already at the oldest entry: stay
        if index >= len(entries):
            self._browse = None
            self._show(self._draft)
            return True
        self._browse = index
        self._show(entries[index])
        return True

    def offer(self, text: str) -> None:
        """Put ``text`` in the box (cursor at the end), to edit and send again."""
        self._show(text)

    def _show(self, text: str) -> None:
        self._recalled = text
        self.load_text(text)
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document.get_line(last))))

    # --- completion -----------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Keep the completion menu in step with what is typed (not with recalled history)."""
        if self._recalled is not None and self.text == self._recalled:
            if self.menu is not None:
                self.menu.close()
            return
        self._recalled = None
        self.update_completion()

    def update_completion(self) -> None:
        """Open, refresh or close the menu for the token at the cursor."""
        if self.menu is None or self.completer is None:
            return
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        request = self.completer(before, row == 0)
        if request is None:
            self.menu.close()
        else:
            self.menu.open(request)

    def accept_completion(self) -> None:
        """Replace the token at the cursor with the highlighted choice."""
        if self.menu is None:
            return
        request, choice = self.menu.request, self.menu.choice
        self.menu.close()
        if request is None or choice is None:
            return
        row, column = self.cursor_location
        suffix = "" if choice.value.endswith("/") else " "
        self.replace(choice.value + suffix, (row, request.start), (row, column))
