"""/notes: the session notes (kept by the model's ``note`` tool or added here), add, delete."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, hint, say
from lull.engine.sessions.notes import record_user_note, session_notes
from lull.model.notes import check_key, check_text

if TYPE_CHECKING:
    from lull.runtime import Runtime

USAGE = "/notes, /notes add [KEY:] TEXT, /notes delete KEY"


def notes_command(runtime: Runtime, arg: str) -> CommandResult:
    """/notes [add [KEY:] TEXT | delete KEY]."""
    word, _, rest = arg.strip().partition(" ")
    match word.lower():
        case "":
            return _show(runtime)
        case "add":
            return _add(runtime, rest.strip())
        case "delete" | "del" | "rm":
            return _delete(runtime, rest.strip())
        case _:
            return hint(f"unknown /notes argument {word!r}; try {USAGE}")


def _show(runtime: Runtime) -> CommandResult:
    notes = session_notes(runtime.agent.session)
    if not notes:
        return say(
            "no session notes yet: the model keeps them with its note tool, or add one with "
            "/notes add [KEY:] TEXT"
        )
    lines = [
        f"session notes ({len(notes)}; never cleared or summarised away, restated after a "
        "compression):"
    ]
    for note in notes.values():
        by = "you" if note.by == "user" else "model"
        lines.append(f"  {note.key}: {note.text}  ({by})")
    return CommandResult(tuple(lines))


def split_note(text: str, taken: set[str]) -> tuple[str, str]:
    """(key, text) of ``/notes add`` input: ``KEY: TEXT`` when the part before the first
    ": " is a one-word key, else an unused ``note-N`` key and the whole text."""
    head, colon, body = text.partition(": ")
    if colon and head.strip() and " " not in head.strip() and body.strip():
        return head.strip(), body.strip()
    number = 1
    while f"note-{number}" in taken:
        number += 1
    return f"note-{number}", text


def _add(runtime: Runtime, text: str) -> CommandResult:
    if not text:
        return hint("/notes add needs the note, e.g. /notes add tests: run them with make check")
    session = runtime.agent.session
    key, body = split_note(text, set(session_notes(session)))
    problem = check_key(key) or check_text(body)
    if problem is not None:
        return hint(f"/notes add: {problem}")
    record_user_note(session, key, body)
    return say(f"noted '{key}': the model sees it with your next message")


def _delete(runtime: Runtime, key: str) -> CommandResult:
    session = runtime.agent.session
    notes = session_notes(session)
    if not key:
        return hint("/notes delete needs the note's key; /notes lists them")
    if key not in notes:
        known = ", ".join(notes) or "none"
        return hint(f"/notes delete: no note {key!r} (notes: {known})")
    record_user_note(session, key, None)
    return say(f"deleted note '{key}'")
