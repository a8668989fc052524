"""The lines a slash command printed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lull.model.text import terminal_text


class CommandOutput(Static):
    """Plain lines from a slash command (no markup); hints about bad input are coloured."""

    DEFAULT_CSS = """
    CommandOutput {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $secondary;
        color: $text;
    }
    CommandOutput.-error {
        border-left: thick $error;
        color: $error;
    }
    """

    def __init__(self, command: str, lines: tuple[str, ...], *, error: bool = False) -> None:
        body = Text(terminal_text(command), style="bold")
        for line in lines:
            body.append("\n" + terminal_text(line))
        super().__init__(body, markup=False, classes="-error" if error else "")
        self.command = command
        self.lines = lines
