"""The ``recall`` tool: the original output of a cleared tool result, or the messages a
summary replaced, as a new tool result (``app/context/recall.py`` finds it).

The tool reads the current session (``session()``, so a resume or fork is followed). Its
result is appended like any other, so the cached prefix stays as it is, and it is
compactable: a recalled output counts like a fresh one for the keep rule and may be cleared
(and recalled) again later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lull.context.recall import RECALL_TOOL, recall
from lull.engine.sessions.session import Session
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput

DESCRIPTION = """\
Get back content that was removed to save context: the original output of a tool result \
that reads "[Old tool result content cleared — recall id <id>]", or the earlier messages a \
summary replaced (the summary names its recall id). Pass that id. Prefer this over running \
the tool again when the original output is what you need."""


class RecallTool(Tool):
    """``recall``: return the original behind a recall id as a new tool result."""

    name = RECALL_TOOL
    description = DESCRIPTION
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "id": {
                "type": "string",
                "description": "The recall id: a tool call id (call_...) or a summary's id.",
            }
        },
        "required": ["id"],
        "additionalProperties": False,
    }
    read_only = True
    compactable = True

    def __init__(self, session: Callable[[], Session]) -> None:
        self.session = session

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The id being recalled."""
        return str(args.get("id", ""))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Look the id up in the session's transcript."""
        current = self.session()
        try:
            text = recall(current.transcript, current.edits, str(args.get("id", "")))
        except LookupError as error:
            raise ToolError(str(error)) from None
        return ToolOutput(text)
