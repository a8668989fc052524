"""Session notes, derived from the conversation: the ``note`` tool calls that succeeded and
the notes the user added or deleted (``/notes``), applied in order.

Notes live only in the transcript (append-only), so nothing is stored twice, a resumed
session has the same notes, and a compression restates them from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lull.model.messages import Message, Text, ToolCall
from lull.model.notes import NOTE_TOOL, check_key, check_text, parse_user_note

NoteAuthor = Literal["model", "user"]


@dataclass(frozen=True, slots=True)
class Note:
    """One session note: its key, its text, who wrote it last, and the message it came from."""

    key: str
    text: str
    by: NoteAuthor
    message_id: str


def note_change(arguments: Any) -> tuple[str, str | None] | None:
    """(key, text) a ``note`` call asks for (text None: delete it), or None if invalid."""
    if not isinstance(arguments, dict):
        return None
    key, action = arguments.get("key"), arguments.get("action", "write")
    if not isinstance(key, str) or check_key(key) is not None:
        return None
    if action == "delete":
        return key.strip(), None
    text = arguments.get("text")
    if action != "write" or not isinstance(text, str) or check_text(text) is not None:
        return None
    return key.strip(), text.strip()


def notes_from(messages: Sequence[Message]) -> dict[str, Note]:
    """The notes in force after ``messages``, by key, oldest first.

    A ``note`` call counts once its result arrived and is not an error; a user note is a
    user message holding :func:`~lull.model.notes.user_note_text`.
    """
    calls: dict[str, tuple[ToolCall, str]] = {}
    notes: dict[str, Note] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCall) and part.name == NOTE_TOOL:
                calls[part.id] = (part, message.id)
            if isinstance(part, Text) and message.role == "user":
                change = parse_user_note(part.text)
                if change is not None:
                    _apply(notes, change, "user", message.id)
        for result in message.tool_results:
            found = calls.pop(result.call_id, None)
            if found is None or result.is_error:
                continue
            change = note_change(dict(found[0].arguments))
            if change is not None:
                _apply(notes, change, "model", found[1])
    return notes


def is_note_message(message: Message) -> bool:
    """True for a user message that only adds or deletes a note (``/notes``)."""
    texts = [p for p in message.parts if isinstance(p, Text)]
    return (
        message.role == "user"
        and bool(texts)
        and len(texts) == len(message.parts)
        and all(parse_user_note(p.text) is not None for p in texts)
    )


def render_notes(notes: dict[str, Note]) -> list[str]:
    """One Markdown list line per note (``- key: text``), oldest first."""
    return [f"- {note.key}: {note.text}" for note in notes.values()]


def _apply(
    notes: dict[str, Note], change: tuple[str, str | None], by: NoteAuthor, message_id: str
) -> None:
    key, text = change
    notes.pop(key, None)  # an update moves the note to the end (newest)
    if text is not None:
        notes[key] = Note(key, text, by, message_id)
