"""The model's to-do list (``todo_write``) as the editor's plan: each call's list becomes a
``plan`` update (the whole plan, as the protocol wants it), every entry of medium priority
(lull's list has no priorities)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.model.messages import ToolCall, ToolResult
from lull.model.todos import call_todos

if TYPE_CHECKING:
    from acp.schema import AgentPlanUpdate


def todo_plan(call: ToolCall, result: ToolResult) -> AgentPlanUpdate | None:
    """The ``plan`` update a finished ``todo_write`` call makes (None: another tool, or a
    call that failed)."""
    from acp.helpers import plan_entry, update_plan

    todos = None if result.is_error else call_todos(call)
    if todos is None:
        return None
    return update_plan(
        [plan_entry(todo.content, priority="medium", status=todo.status) for todo in todos]
    )
