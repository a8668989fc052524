"""The ``note`` tool: the model keeps short keyed session notes in the conversation.

The tool itself stores nothing: the call and its result are the note, append-only in the
transcript. The engine derives the notes from there (``app/context/notes.py``), keeps them
out of every clear and restates them after a compression, so they cost no extra request and
leave the cached prefix alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lull.model.notes import (
    MAX_KEY_CHARS,
    MAX_NOTE_CHARS,
    NOTE_TOOL,
    NoteAction,
    check_key,
    check_text,
)
from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool

DESCRIPTION = f"""\
Keep a short session note that must survive the whole session (the user wants tabs; tests \
run with `make check`). Notes are never cleared or summarised away. `key` names it (same key \
updates it; at most {MAX_KEY_CHARS} characters, no ':'), `text` is the note (at most \
{MAX_NOTE_CHARS} characters), `action` "delete" removes it."""


@dataclass(frozen=True, slots=True)
class NoteParams:
    """The arguments of ``note`` (described in the tool's description only)."""

    key: str
    text: str | None = None
    action: NoteAction = "write"


class NoteTool(TypedTool[NoteParams]):
    """Write, update or delete one session note (the call is the note)."""

    name = NOTE_TOOL
    description = DESCRIPTION
    params = NoteParams
    read_only = True
    compactable = False

    async def call(self, params: NoteParams, ctx: ToolContext) -> ToolOutput:
        """Check the note and say what was kept; the engine reads the note from the call."""
        key = params.key
        if (problem := check_key(key)) is not None:
            raise ToolError(f"note: {problem}")
        if params.action == "delete":
            return ToolOutput(f"deleted note '{key.strip()}'")
        text = params.text
        if text is None:
            raise ToolError("note: 'text' is required to write a note (action 'delete' removes)")
        if (problem := check_text(text)) is not None:
            raise ToolError(f"note: {problem}")
        return ToolOutput(f"noted '{key.strip()}'")

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """``key`` (and ``delete`` when deleting) for the UI."""
        key = str(args.get("key", ""))
        return f"delete {key}" if args.get("action") == "delete" else key
