"""The ``recall`` tool: the original output of a cleared tool result, or the messages a
summary replaced, as a new tool result (``app/context/recall.py`` finds it).

The tool reads the current session (``session()``, so a resume or fork is followed). Its
result is appended like any other, so the cached prefix stays as it is, and it is
compactable: a recalled output counts like a fresh one for the keep rule and may be cleared
(and recalled) again later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lull.context.recall import RECALL_TOOL, recall
from lull.engine.sessions.session import Session
from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.params import doc

DESCRIPTION = """\
Get back content that was removed to save context: the original output of a tool result \
that reads "[Old tool result content cleared — recall id <id>]", or the earlier messages a \
summary replaced (the summary names its recall id). Pass that id. Prefer this over running \
the tool again when the original output is what you need."""


@dataclass(frozen=True, slots=True)
class RecallParams:
    """The arguments of ``recall``."""

    id: str = field(metadata=doc("The recall id: a tool call id (call_...) or a summary's id."))


class RecallTool(TypedTool[RecallParams]):
    """``recall``: return the original behind a recall id as a new tool result."""

    name = RECALL_TOOL
    description = DESCRIPTION
    params = RecallParams
    read_only = True
    compactable = True

    def __init__(self, session: Callable[[], Session]) -> None:
        self.session = session

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The id being recalled."""
        return str(args.get("id", ""))

    async def call(self, params: RecallParams, ctx: ToolContext) -> ToolOutput:
        """Look the id up in the session's transcript."""
        current = self.session()
        try:
            text = recall(current.transcript, current.edits, params.id)
        except LookupError as error:
            raise ToolError(str(error)) from None
        return ToolOutput(text)
