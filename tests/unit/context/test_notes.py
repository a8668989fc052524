"""Session notes derived from the conversation: successful note calls and the user's notes,
in order; failed or unanswered calls are no notes."""

from __future__ import annotations

from lull.context.notes import is_note_message, note_change, notes_from, render_notes
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.notes import parse_user_note, user_note_text
from tests.unit.context.builders import assistant, results, user


def note(
    call_id: str, result: str = "noted", *, error: bool = False, **args: object
) -> list[Message]:
    return [
        assistant(ToolCall(call_id, "note", args)),
        results(ToolResult(call_id, "note", result, is_error=error)),
    ]


def by_user(key: str, text: str | None) -> Message:
    return Message("user", (Text(user_note_text(key, text)),), origin="synthetic")


def test_notes_are_written_updated_and_deleted_in_order() -> None:
    messages = [
        user("hi"),
        *note("n1", key="tabs", text="the user wants tabs"),
        *note("n2", key="tests", text="make test"),
        by_user("tests", "make check"),
        *note("n3", key="bug", text="in parse_date"),
        *note("n4", key="bug", action="delete"),
    ]
    notes = notes_from(messages)
    assert [(n.key, n.text, n.by) for n in notes.values()] == [
        ("tabs", "the user wants tabs", "model"),
        ("tests", "make check", "user"),
    ]
    assert render_notes(notes) == ["- tabs: the user wants tabs", "- tests: make check"]
    assert notes_from([*messages, by_user("tabs", None)]).keys() == {"tests"}


def test_failed_invalid_and_unanswered_note_calls_are_no_notes() -> None:
    messages = [
        user("hi"),
        *note("n1", "note: bad", error=True, key="a", text="x"),
        *note("n2", key="b", text="x" * 600),
        assistant(ToolCall("n3", "note", {"key": "c", "text": "never answered"})),
    ]
    assert notes_from(messages) == {}
    assert note_change({"key": "k", "action": "delete"}) == ("k", None)
    assert note_change("not a dict") is None


def test_a_user_note_message_round_trips() -> None:
    assert parse_user_note(user_note_text("tabs", "use tabs: always")) == (
        "tabs",
        "use tabs: always",
    )
    assert parse_user_note(user_note_text("tabs", None)) == ("tabs", None)
    assert parse_user_note("use tabs") is None
    assert is_note_message(by_user("k", "v")) and not is_note_message(user("k: v"))
