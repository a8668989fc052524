"""The model's to-do list (``todo_write``, Claude Code's ``TodoWrite``): what the tool, the
front ends and the editor's plan share. The list lives in the conversation: each call holds
the whole list, and the latest call's list is the current one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from lull.model.messages import ToolCall

TODO_TOOL: Final = "todo_write"
TodoStatus = Literal["pending", "in_progress", "completed"]
TODO_STATUSES: tuple[TodoStatus, ...] = get_args(TodoStatus)
MAX_TODOS: Final = 50
MAX_TODO_CHARS: Final = 500


@dataclass(frozen=True, slots=True)
class Todo:
    """One item: what to do (imperative), its status, and the present-continuous form shown
    while it is in progress (``active_form``, Claude Code's ``activeForm``)."""

    content: str
    status: TodoStatus
    active_form: str = ""


def parse_todos(raw: Any) -> tuple[Todo, ...]:
    """The list a call's ``todos`` argument holds; raises ``ValueError`` saying what is
    wrong (each item needs ``content`` and a ``status`` of pending, in_progress or
    completed; ``activeForm`` may be left out)."""
    if not isinstance(raw, list):
        raise ValueError("'todos' must be a list of {content, status, activeForm}")
    if len(raw) > MAX_TODOS:
        raise ValueError(f"at most {MAX_TODOS} items (got {len(raw)})")
    return tuple(_todo(item, number) for number, item in enumerate(raw, 1))


def _todo(item: Any, number: int) -> Todo:
    if not isinstance(item, Mapping):
        raise ValueError(f"item {number} must be an object {{content, status, activeForm}}")
    content, status = item.get("content"), item.get("status")
    active = item.get("activeForm", item.get("active_form", ""))
    if not isinstance(content, str) or not content.strip():
        raise ValueError(f"item {number} needs a 'content' (what to do)")
    if status not in TODO_STATUSES:
        raise ValueError(f"item {number}: 'status' must be one of {', '.join(TODO_STATUSES)}")
    if not isinstance(active, str):
        raise ValueError(f"item {number}: 'activeForm' must be a string")
    if len(content) > MAX_TODO_CHARS or len(active) > MAX_TODO_CHARS:
        raise ValueError(f"item {number} is longer than {MAX_TODO_CHARS} characters")
    return Todo(content.strip(), status, active.strip())


def call_todos(call: ToolCall) -> tuple[Todo, ...] | None:
    """The list a ``todo_write`` call set (None: another tool, or arguments that are no
    list)."""
    if call.name != TODO_TOOL:
        return None
    try:
        return parse_todos(call.arguments.get("todos"))
    except ValueError:
        return None


def todo_counts(todos: Sequence[Todo]) -> str:
    """``2 done, 1 in progress, 3 pending`` (the parts that are not zero)."""
    counts = {status: sum(1 for todo in todos if todo.status == status) for status in TODO_STATUSES}
    parts = [
        f"{counts['completed']} done" if counts["completed"] else "",
        f"{counts['in_progress']} in progress" if counts["in_progress"] else "",
        f"{counts['pending']} pending" if counts["pending"] else "",
    ]
    return ", ".join(part for part in parts if part) or "empty"
