"""Recall: the original behind a recall id, so clearing and summarising lose nothing.

A cleared tool result reads ``[Old tool result content cleared — recall id call_123]`` and a
summary names its own id (``summary_text``); the ``recall`` tool (``app/engine/fitting/recall.py``)
looks the id up here in the session's transcript, which keeps every original, and returns
it as a new tool result: appended, so the cached prefix is untouched. Pure functions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import assert_never

from lull.model.edits import ContextEdit, Summary
from lull.model.messages import Image, Message, Part, Text, Thinking, ToolCall, ToolResult

RECALL_TOOL = "recall"


def recall(transcript: Sequence[Message], edits: Sequence[ContextEdit], recall_id: str) -> str:
    """The original text for ``recall_id``: a tool call's output, or the messages a summary
    replaced. Raises :class:`LookupError` with a one-line reason when there is none."""
    wanted = recall_id.strip()
    for message in transcript:
        for result in message.tool_results:
            if result.call_id == wanted and not result.cleared:
                return result.content
    summary = next((e for e in edits if isinstance(e, Summary) and e.id == wanted), None)
    if summary is not None:
        span = summarised_span(transcript, summary)
        if span:
            return "\n\n".join(render_message(m) for m in span)
    raise LookupError(
        f"recall: no tool call or summary with id {wanted!r} in this session "
        "(use the id a cleared result or a summary names)"
    )


def summarised_span(transcript: Sequence[Message], summary: Summary) -> list[Message]:
    """The transcript messages ``summary`` replaced (every message through its last one)."""
    ids = [m.id for m in transcript]
    if summary.through_id not in ids:
        return []
    return list(transcript[: ids.index(summary.through_id) + 1])


def render_message(message: Message) -> str:
    """One message as plain text for a recall result."""
    lines = [f"[{message.role}]"]
    lines += [text for part in message.parts if (text := _render_part(part))]
    return "\n".join(lines)


def _render_part(part: Part) -> str:
    match part:
        case Text(text=text):
            return text
        case Thinking():
            return ""
        case ToolCall(id=call_id, name=name, arguments=arguments):
            args = json.dumps(dict(arguments), ensure_ascii=False, default=str)
            return f"(tool call {call_id}: {name} {args})"
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            kind = "error" if is_error else "result"
            return f"(tool {kind} {call_id})\n{content}"
        case Image(media_type=media_type):
            return f"(image {media_type})"
        case _:
            assert_never(part)
