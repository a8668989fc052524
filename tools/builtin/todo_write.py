"""The ``todo_write`` tool (Claude Code's ``TodoWrite``): the model keeps a to-do list for a
task of several steps, which the user sees (the terminal shows it under the call, an editor as
its plan). Each call holds the whole list; the tool checks it and confirms. It changes
nothing, so it is never asked about."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lull.model.todos import TODO_STATUSES, TODO_TOOL, parse_todos, todo_counts
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput

DESCRIPTION = """\
Keep a to-do list for a task of 3 or more steps; the user sees it. Each call replaces the \
whole list. Mark an item in_progress before starting it (one at a time) and completed as \
soon as it is done."""

PARAMETERS: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "description": "e.g. 'Run tests'."},
                    "status": {"type": "string", "enum": list(TODO_STATUSES)},
                    "activeForm": {"type": "string", "description": "e.g. 'Running tests'."},
                },
                "required": ["content", "status", "activeForm"],
            },
        }
    },
    "required": ["todos"],
    "additionalProperties": False,
}


class TodoWriteTool(Tool):
    """Check the model's to-do list and confirm it (the call is the list)."""

    name = TODO_TOOL
    description = DESCRIPTION
    parameters = PARAMETERS
    read_only = True
    compactable = False

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Confirm the list, with its counts."""
        try:
            todos = parse_todos(args.get("todos"))
        except ValueError as error:
            raise ToolError(f"todo_write: {error}") from error
        return ToolOutput(f"to-do list updated ({todo_counts(todos)})")

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """How many items, for the UI."""
        todos = args.get("todos")
        return f"{len(todos)} items" if isinstance(todos, list) else ""
