"""One short line: a notice from the engine, a context edit, or an error."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

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
        super().__init__(Text(f"{glyph} {text}"), markup=False, classes=f"-{level}")
        self.text = text
        self.level = level
