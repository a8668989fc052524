"""The view: what the model sees, computed from the transcript and the edits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from app.model.edits import ClearThinking, ClearToolResults, ContextEdit, Restore, Summary
from app.model.messages import CLEARED_TOOL_RESULT, Message, Part, Text, Thinking, ToolResult

SUMMARY_PREFIX = "This session is being continued from an earlier conversation. Summary so far:\n\n"


def active_edits(edits: Sequence[ContextEdit]) -> list[ContextEdit]:
    """Edits still in force: those not undone by a later :class:`Restore`."""
    restored: set[str] = set()
    for edit in edits:
        if isinstance(edit, Restore):
            restored.update(edit.edit_ids)
    return [e for e in edits if not isinstance(e, Restore) and e.id not in restored]


def build_view(transcript: Sequence[Message], edits: Sequence[ContextEdit]) -> list[Message]:
    """The messages to send: the transcript with every active edit applied.

    Messages nothing touches are returned as the same objects, so a view is
    cheap to rebuild and token counts cached per message stay valid.
    """
    live = active_edits(edits)
    cleared_calls: set[str] = set()
    stripped: set[str] = set()
    summary: Summary | None = None
    for edit in live:
        match edit:
            case ClearToolResults(call_ids=ids):
                cleared_calls.update(ids)
            case ClearThinking(message_ids=ids):
                stripped.update(ids)
            case Summary():
                summary = edit
            case Restore():
                pass  # active_edits already applied it
            case _:
                assert_never(edit)
    messages = list(transcript)
    if summary is not None:
        messages = _apply_summary(messages, summary)
    if not cleared_calls and not stripped:
        return messages
    return [_apply_clears(m, cleared_calls, stripped) for m in messages]


def _apply_summary(messages: list[Message], summary: Summary) -> list[Message]:
    ids = [m.id for m in messages]
    if summary.through_id not in ids:
        return messages
    tail = messages[ids.index(summary.through_id) + 1 :]
    head = Message(
        "user",
        (Text(SUMMARY_PREFIX + summary.text),),
        id=summary.id,
        created_at=summary.at,
        origin="summary",
    )
    if tail and tail[0].role == "user" and not tail[0].tool_results:
        merged = tail[0].replace_parts(head.parts + tail[0].parts)
        return [merged, *tail[1:]]
    return [head, *tail]


def _apply_clears(message: Message, cleared_calls: set[str], stripped: set[str]) -> Message:
    changed = False
    parts: list[Part] = []
    strip_thinking = message.id in stripped
    for part in message.parts:
        if strip_thinking and isinstance(part, Thinking):
            changed = True
            continue
        if isinstance(part, ToolResult) and part.call_id in cleared_calls and not part.cleared:
            parts.append(
                ToolResult(part.call_id, part.name, CLEARED_TOOL_RESULT, part.is_error, True)
            )
            changed = True
            continue
        parts.append(part)
    return message.replace_parts(tuple(parts)) if changed else message
