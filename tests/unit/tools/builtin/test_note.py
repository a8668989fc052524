"""The note tool: checks the note and says what was kept; the call itself is the note."""

from __future__ import annotations

from lull.tools.builtin.note import NoteTool
from tests.unit.tools.helpers import Call


async def test_writing_updating_and_deleting_a_note(call: Call) -> None:
    written = await call("note", key="tabs", text="the user wants tabs")
    assert not written.is_error and written.content == "noted 'tabs'"
    deleted = await call("note", key="tabs", action="delete")
    assert not deleted.is_error and deleted.content == "deleted note 'tabs'"


async def test_bad_notes_are_errors_saying_what_was_wrong(call: Call) -> None:
    missing = await call("note", key="tabs")
    assert missing.is_error and "'text' is required" in missing.content
    long = await call("note", key="tabs", text="x" * 501)
    assert long.is_error and "at most 500 characters (got 501)" in long.content
    colon = await call("note", key="a: b", text="t")
    assert colon.is_error and "one line without ':'" in colon.content
    action = await call("note", key="k", text="t", action="append")
    assert action.is_error and "action" in action.content


def test_the_tool_is_read_only_and_never_compactable() -> None:
    tool = NoteTool()
    assert tool.read_only and not tool.compactable
    assert tool.describe_call({"key": "tabs", "action": "delete"}) == "delete tabs"
