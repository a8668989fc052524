"""The model's to-do list under its ``todo_write`` call: one line per item, the current one
bold, the done ones dim."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from lull.model.todos import Todo
from lull.ui.shared.todos import todo_line

STYLES = {"completed": "dim", "in_progress": "bold", "pending": ""}


class TodoList(Static):
    """A compact to-do list (``todo_write``'s latest list)."""

    DEFAULT_CSS = """
    TodoList {
        height: auto;
        padding: 0 1 0 4;
    }
    """

    def __init__(self, todos: Sequence[Todo]) -> None:
        shown = Text()
        for number, todo in enumerate(todos):
            if number:
                shown.append("\n")
            shown.append(todo_line(todo), style=STYLES[todo.status])
        super().__init__(shown or Text("(the to-do list is empty)"), markup=False)
        self.todos = tuple(todos)
