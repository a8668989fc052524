"""A unified diff in colour: additions green, removals red, hunk headers dim.

The ``+``/``-`` markers stay in the text, so a diff still reads right with
NO_COLOR or in a monochrome theme.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from lull.model.text import terminal_text

MAX_LINES = 80


def write_as_diff(path: str, content: str) -> str:
    """A file written whole, shown as a diff that adds every line."""
    lines = content.splitlines()
    body = "\n".join(f"+{line}" for line in lines)
    return f"--- {path}\n+++ {path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"


def render_diff(diff: str, max_lines: int = MAX_LINES) -> Text:
    """``diff`` as styled text, cut to ``max_lines`` with a count of what was left out
    (control characters shown: :func:`terminal_text`)."""
    lines = terminal_text(diff).splitlines()
    text = Text()
    for index, line in enumerate(lines[:max_lines]):
        if index:
            text.append("\n")
        text.append(line, style=_style(line))
    hidden = len(lines) - max_lines
    if hidden > 0:
        text.append(f"\n… {hidden} more lines", style="dim italic")
    return text


def _style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("@@"):
        return "cyan dim"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return ""


def diff_stats(diff: str) -> tuple[int, int]:
    """(lines added, lines removed) in a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


class DiffView(Static):
    """A coloured unified diff (long ones are cut, with a count)."""

    DEFAULT_CSS = """
    DiffView {
        padding: 0 1;
        margin: 0 0 0 2;
        background: $surface;
    }
    """

    def __init__(self, diff: str, max_lines: int = MAX_LINES) -> None:
        super().__init__(render_diff(diff, max_lines), markup=False)
        self.diff = diff
