"""Session notes: short keyed facts the model (``note`` tool) or the user (``/notes add``)
keeps in the conversation itself, so they cost no extra request and never touch the cached
prefix. This module holds what the tool, the context policies and the commands share: the
tool name, the limits, one check, and the text of a note the user added."""

from __future__ import annotations

import re
from typing import Final, Literal

NOTE_TOOL: Final = "note"
NoteAction = Literal["write", "delete"]
NOTE_ACTIONS: tuple[NoteAction, ...] = ("write", "delete")
MAX_KEY_CHARS: Final = 64
MAX_NOTE_CHARS: Final = 500
USER_NOTE_MARK: Final = "[lull: session note from the user]"
USER_DELETE_MARK: Final = "[lull: the user deleted session note]"

_USER_NOTE = re.compile(
    rf"^(?P<mark>{re.escape(USER_NOTE_MARK)}|{re.escape(USER_DELETE_MARK)}) "
    r"(?P<key>[^\n:]+?)(?:: (?P<text>.*))?$",
    re.S,
)


def check_key(key: str) -> str | None:
    """Why ``key`` cannot name a note (None when it can): 1 to 64 characters on one line,
    no colon, not only blanks."""
    if not key.strip():
        return "a note needs a key (a few words naming it, e.g. 'indentation')"
    if len(key) > MAX_KEY_CHARS:
        return f"a note key has at most {MAX_KEY_CHARS} characters (got {len(key)})"
    if "\n" in key or ":" in key:
        return "a note key is one line without ':'"
    return None


def check_text(text: str) -> str | None:
    """Why ``text`` cannot be a note's text (None when it can): not empty, at most 500
    characters (a note is short; longer material belongs in a file)."""
    if not text.strip():
        return "a note needs its text"
    if len(text) > MAX_NOTE_CHARS:
        return f"a note has at most {MAX_NOTE_CHARS} characters (got {len(text)}); keep it short"
    return None


def user_note_text(key: str, text: str | None) -> str:
    """The conversation text of a note the user wrote (``text``) or deleted (None)."""
    if text is None:
        return f"{USER_DELETE_MARK} {key.strip()}"
    return f"{USER_NOTE_MARK} {key.strip()}: {text.strip()}"


def parse_user_note(text: str) -> tuple[str, str | None] | None:
    """(key, text) of a :func:`user_note_text` (text None for a deletion), else None."""
    match = _USER_NOTE.match(text)
    if match is None:
        return None
    if match.group("mark") == USER_DELETE_MARK:
        return match.group("key").strip(), None
    body = match.group("text")
    return (match.group("key").strip(), body) if body is not None else None
