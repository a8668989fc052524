"""Session notes from the engine's side: the notes in force, and a note the user adds or
deletes (``/notes``), appended to the conversation like everything else."""

from __future__ import annotations

from lull.context.notes import Note, notes_from
from lull.engine.sessions.session import CANCELLED_RESULT, Session
from lull.model.messages import Message, Text
from lull.model.notes import user_note_text


def session_notes(session: Session) -> dict[str, Note]:
    """The notes in force in ``session`` (from its whole transcript), oldest first."""
    return notes_from(session.transcript)


def record_user_note(session: Session, key: str, text: str | None) -> Message:
    """Append the user's note ``key`` (``text`` None deletes it) to the conversation: one
    user message the model sees with the next request (no extra request, the cached prefix
    is untouched). Unfinished tool calls get their 'cancelled' result first, so every call
    is still answered right after it."""
    session.close_open_calls(CANCELLED_RESULT)
    message = Message("user", (Text(user_note_text(key, text)),), origin="synthetic")
    session.add(message)
    return message
