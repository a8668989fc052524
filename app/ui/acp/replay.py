"""A saved session replayed to the editor (``session/load``): the conversation as the
updates it streamed when it was live.

The user's messages come back as ``user_message_chunk``, the answers and reasoning as agent
chunks, every tool call with its result (edits as diffs, a to-do list as the plan). The
messages ``/rewind`` hid stay hidden; messages lull wrote itself (summaries, hook context)
are left out, as the terminal front ends leave them out of their recap.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lull.model.messages import Image, Message, Text, Thinking, ToolCall, ToolResult
from lull.ui.acp.plans import todo_plan
from lull.ui.acp.tool_calls import ToolCallTracker

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate


def replayed(messages: Sequence[Message], workspace: Path) -> Iterator[SessionUpdate]:
    """The updates that show ``messages`` (a session's ``shown()`` transcript)."""
    from acp.helpers import (
        image_block,
        update_agent_message_text,
        update_agent_thought_text,
        update_user_message,
        update_user_message_text,
    )

    tracker = ToolCallTracker(workspace)
    calls: dict[str, ToolCall] = {}
    for message in messages:
        if message.origin in ("synthetic", "summary"):
            continue
        for part in message.parts:
            match part:
                case Text(text) if message.role == "user" and text:
                    yield update_user_message_text(text)
                case Text(text) if text:
                    yield update_agent_message_text(text)
                case Thinking(text, redacted=False) if text:
                    yield update_agent_thought_text(text)
                case Image(media_type, data) if message.role == "user":
                    yield update_user_message(image_block(data, media_type))
                case ToolCall():
                    calls[part.id] = part
                    started = tracker.start(part, _summary(part))
                    if started is not None:
                        yield started
                case ToolResult(call_id=call_id) if call_id in calls:
                    yield tracker.finish(calls[call_id], part)
                    if plan := todo_plan(calls[call_id], part):
                        yield plan
                case _:
                    pass
    yield from tracker.unfinished()


def _summary(call: ToolCall) -> str:
    """The call's key argument, shown in its title (the path, the command, the pattern)."""
    for key in ("path", "command", "pattern", "url", "query", "description"):
        value = call.arguments.get(key)
        if isinstance(value, str) and value:
            return value if len(value) <= 80 else value[:79] + "…"
    return ""
