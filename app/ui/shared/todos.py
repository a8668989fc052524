"""The model's to-do list as the terminal front ends show it: one short line per item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from lull.model.text import terminal_text
from lull.model.todos import Todo

GLYPHS = {"completed": "✓", "in_progress": "▸", "pending": "○"}
"""How each status is marked (the line also names it by style: done dim, current bold)."""


def todo_line(todo: Todo) -> str:
    """``✓ Run tests``, ``▸ Running tests`` (in progress: its active form), ``○ Run tests``."""
    match todo.status:
        case "in_progress":
            text = todo.active_form or todo.content
        case "completed" | "pending":
            text = todo.content
        case _:
            assert_never(todo.status)
    return f"{GLYPHS[todo.status]} {' '.join(terminal_text(text).split())}"


def todo_lines(todos: Sequence[Todo]) -> list[str]:
    """The list, one line per item (an empty list: one line saying so)."""
    return [todo_line(todo) for todo in todos] or ["(the to-do list is empty)"]
