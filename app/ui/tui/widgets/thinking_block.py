"""The model's reasoning: dimmed, open while it streams, collapsed once the answer starts."""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Collapsible, Static

from lull.model.text import terminal_text

REFRESH_SECONDS = 0.05
TAIL_LINES = 8


class ThinkingBlock(Collapsible):
    """Reasoning text in a collapsible block; updates are batched to stay cheap."""

    DEFAULT_CSS = """
    ThinkingBlock {
        margin: 1 0 0 0;
        padding: 0;
        border-top: none;
        background: transparent;
    }
    ThinkingBlock > Contents {
        padding: 0 0 0 2;
    }
    ThinkingBlock Static.thinking-text {
        color: $text-muted;
        text-style: italic;
    }
    """

    def __init__(self, text: str = "", *, streaming: bool = True) -> None:
        self.text = text
        self._body = Static(Text(terminal_text(text)), markup=False, classes="thinking-text")
        super().__init__(self._body, title="thinking…", collapsed=not streaming)
        self._timer: Timer | None = None
        self.finished = not streaming
        if not streaming:
            self.title = self._done_title()

    def append(self, fragment: str) -> None:
        """Add reasoning text (the display refreshes at most every 50 ms)."""
        self.text += fragment
        if self._timer is None:
            self._timer = self.set_timer(REFRESH_SECONDS, self._refresh_text)

    def _refresh_text(self) -> None:
        self._timer = None
        lines = self.text[-8000:].splitlines()
        self._body.update(Text(terminal_text("\n".join(lines[-TAIL_LINES:]))))

    def _done_title(self) -> str:
        words = len(self.text.split())
        return f"thought ({words} words)" if words else "thought"

    def finish(self) -> None:
        """Reasoning is over: show all of it (when expanded) and collapse the block."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._body.update(Text(terminal_text(self.text)))
        self.finished = True
        self.title = self._done_title()
        self.collapsed = True
