"""One short line: a notice from the engine, a context edit, or an error."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lull.model.text import terminal_text

GLYPHS = {"info": "·", "warning": "!", "error": "✗", "edit": "✂"}


class NoticeLine(Static):
    """A dim one-liner; warnings and errors are coloured (and marked, for NO_COLOR)."""

    DEFAULT_CSS = """
    NoticeLine {
        color: $text-muted;
        padding: 0 1;
    }
    NoticeLine.-warning { color: $warning; }
    NoticeLine.-error { color: $error; text-style: bold; }
    NoticeLine.-edit { color: $secondary; }
    """

    def __init__(self, text: str, level: str = "info") -> None:
        glyph = GLYPHS.get(level, "·")
        shown = Text(f"{glyph} {terminal_text(text)}")
        super().__init__(shown, markup=False, classes=f"-{level}")
        self.text = text
        self.level = level
