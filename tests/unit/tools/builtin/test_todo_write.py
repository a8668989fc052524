"""The todo_write tool: checks the whole list and confirms it; the call is the list."""

from __future__ import annotations

from lull.model.messages import ToolCall
from lull.model.permissions import rule_tools
from lull.model.todos import Todo, call_todos
from lull.tools.builtin.todo_write import TodoWriteTool
from tests.unit.tools.helpers import Call

TODOS = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run tests", "status": "pending", "activeForm": "Running tests"},
]


async def test_a_list_is_confirmed_with_its_counts(call: Call) -> None:
    written = await call("todo_write", todos=TODOS)
    assert not written.is_error
    assert written.content == "to-do list updated (1 done, 1 in progress, 1 pending)"
    emptied = await call("todo_write", todos=[])
    assert emptied.content == "to-do list updated (empty)"


async def test_a_bad_item_is_an_error_naming_it(call: Call) -> None:
    status = await call("todo_write", todos=[{"content": "x", "status": "done", "activeForm": ""}])
    assert status.is_error and "item 1: 'status' must be one of pending" in status.content
    blank = await call("todo_write", todos=[TODOS[0], {"content": " ", "status": "pending"}])
    assert blank.is_error and "item 2 needs a 'content'" in blank.content


def test_the_call_is_the_list_and_claude_codes_name_matches_it() -> None:
    call = ToolCall("t1", "todo_write", {"todos": TODOS})
    todos = call_todos(call)
    assert todos is not None and todos[1] == Todo("Fix the bug", "in_progress", "Fixing the bug")
    assert call_todos(ToolCall("n1", "note", {"todos": TODOS})) is None
    assert rule_tools("TodoWrite") == ("todo_write",)
    tool = TodoWriteTool()
    assert tool.read_only and not tool.compactable  # never asked about
    assert tool.describe_call({"todos": TODOS}) == "3 items"
