"""The ``note`` tool: the model keeps short keyed session notes in the conversation.

The tool itself stores nothing: the call and its result are the note, append-only in the
transcript. The engine derives the notes from there (``app/context/notes.py``), keeps them
out of every clear and restates them after a compression, so they cost no extra request and
leave the cached prefix alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lull.model.notes import (
    MAX_KEY_CHARS,
    MAX_NOTE_CHARS,
    NOTE_ACTIONS,
    NOTE_TOOL,
    check_key,
    check_text,
)
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput

DESCRIPTION = f"""\
Keep a short session note that must survive the whole session (the user wants tabs; tests \
run with `make check`). Notes are never cleared or summarised away. `key` names it (same key \
updates it; at most {MAX_KEY_CHARS} characters, no ':'), `text` is the note (at most \
{MAX_NOTE_CHARS} characters), `action` "delete" removes it."""


class NoteTool(Tool):
    """Write, update or delete one session note (the call is the note)."""

    name = NOTE_TOOL
    description = DESCRIPTION
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "key": {"type": "string"},
            "text": {"type": "string"},
            "action": {"type": "string", "enum": list(NOTE_ACTIONS)},
        },
        "required": ["key"],
        "additionalProperties": False,
    }
    read_only = True
    compactable = False

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Check the note and say what was kept; the engine reads the note from the call."""
        key = str(args["key"])
        if (problem := check_key(key)) is not None:
            raise ToolError(f"note: {problem}")
        if args.get("action", "write") == "delete":
            return ToolOutput(f"deleted note '{key.strip()}'")
        text = args.get("text")
        if not isinstance(text, str):
            raise ToolError("note: 'text' is required to write a note (action 'delete' removes)")
        if (problem := check_text(text)) is not None:
            raise ToolError(f"note: {problem}")
        return ToolOutput(f"noted '{key.strip()}'")

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """``key`` (and ``delete`` when deleting) for the UI."""
        key = str(args.get("key", ""))
        return f"delete {key}" if args.get("action") == "delete" else key
