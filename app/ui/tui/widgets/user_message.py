"""A message the user sent (or queued while lull was busy)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lull.model.text import terminal_text

QUEUED_MARK = "  (queued)"


class UserMessage(Static):
    """The user's text, shown as typed; marked while it waits in the queue."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
        color: $text;
    }
    UserMessage.-queued {
        border-left: thick $panel-lighten-2;
        color: $text-muted;
    }
    """

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(markup=False)
        self.text = text
        self.queued = queued
        self._show()

    def _show(self) -> None:
        body = Text(terminal_text(self.text))
        if self.queued:
            body.append(QUEUED_MARK, style="italic")
        self.set_class(self.queued, "-queued")
        self.update(body)

    def mark_sent(self) -> None:
        """The queued message has been sent to the model."""
        self.queued = False
        self._show()
