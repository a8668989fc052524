"""The view: what the model sees, computed from the transcript and the edits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import assert_never

from lull.model.edits import (
    ClearMedia,
    ClearThinking,
    ClearToolResults,
    ContextEdit,
    Restore,
    Rewind,
    Summary,
    Supersede,
    image_ref,
)
from lull.model.media import cleared_media_text
from lull.model.messages import (
    Image,
    Message,
    Part,
    Text,
    Thinking,
    ToolResult,
    cleared_image_text,
    cleared_result_text,
)

SUMMARY_PREFIX = "This session is being continued from an earlier conversation. Summary so far:\n\n"


def active_edits(edits: Sequence[ContextEdit]) -> list[ContextEdit]:
    """Edits still in force: those not undone by a later :class:`Restore`."""
    restored: set[str] = set()
    for edit in edits:
        if isinstance(edit, Restore):
            restored.update(edit.edit_ids)
    return [e for e in edits if not isinstance(e, Restore) and e.id not in restored]


def live_summary(edits: Sequence[ContextEdit]) -> Summary | None:
    """The summary the view starts with (the latest one in force), or None."""
    summaries = [e for e in active_edits(edits) if isinstance(e, Summary)]
    return summaries[-1] if summaries else None


def summary_text(summary: Summary) -> str:
    """The text the model sees for ``summary``: the prefix, the summary, the pinned block."""
    text = SUMMARY_PREFIX + summary.text
    text = f"{text}\n\n{summary_recall_line(summary.id)}"
    return f"{text}\n\n{summary.pinned}" if summary.pinned else text


def summary_recall_line(summary_id: str) -> str:
    """The line under a summary that names the id the ``recall`` tool brings the replaced
    messages back with."""
    return f"[Earlier messages summarised \u2014 recall id {summary_id}]"


@dataclass
class _Rewrites:
    """What the edits in force do to single parts."""

    cleared_calls: set[str] = field(default_factory=set)
    pointers: dict[str, str] = field(default_factory=dict)
    images: set[str] = field(default_factory=set)
    media: set[str] = field(default_factory=set)
    stripped: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(
            self.cleared_calls or self.pointers or self.images or self.media or self.stripped
        )


def build_view(transcript: Sequence[Message], edits: Sequence[ContextEdit]) -> list[Message]:
    """The messages to send: the transcript with every active edit applied.

    Messages nothing touches are returned as the same objects, so a view is
    cheap to rebuild and token counts cached per message stay valid.
    """
    rewrites = _Rewrites()
    summary: Summary | None = None
    hidden: list[Rewind] = []
    for edit in active_edits(edits):
        match edit:
            case ClearToolResults(call_ids=ids, images=images):
                rewrites.cleared_calls.update(ids)
                rewrites.images.update(images)
            case ClearThinking(message_ids=ids):
                rewrites.stripped.update(ids)
            case Supersede(call_ids=ids, pointers=pointers):
                rewrites.pointers.update(zip(ids, pointers, strict=False))
            case ClearMedia(images=images):
                rewrites.media.update(images)
            case Summary():
                summary = edit
            case Restore():
                pass  # active_edits already applied it
            case Rewind():
                hidden.append(edit)
            case _:
                assert_never(edit)
    messages = _rewound(transcript, hidden) if hidden else list(transcript)
    if summary is not None:
        messages = _apply_summary(messages, summary)
    if not rewrites:
        return messages
    return [_apply_clears(m, rewrites) for m in messages]


def appended_view(
    transcript: Sequence[Message], edits: Sequence[ContextEdit], start: int
) -> list[Message] | None:
    """What ``build_view(transcript, edits)`` has past ``build_view(transcript[:start],
    edits)``, for messages from ``start`` on added after every edit (no edit names them); None
    when they may change what comes before (build the whole view again): a summary with
    nothing after it yet takes a user message that follows into its head, and under a
    ``/rewind`` what follows a summary is not known without the whole transcript."""
    summary = live_summary(edits)
    if summary is not None and (
        (start > 0 and transcript[start - 1].id == summary.through_id)
        or any(isinstance(edit, Rewind) for edit in active_edits(edits))
    ):
        return None
    return build_view(transcript[start:], edits)


def without_rewound(transcript: Sequence[Message], edits: Sequence[ContextEdit]) -> list[Message]:
    """The transcript without what ``/rewind`` hid (what front ends replay)."""
    rewinds = [e for e in active_edits(edits) if isinstance(e, Rewind)]
    return _rewound(transcript, rewinds) if rewinds else list(transcript)


def _rewound(transcript: Sequence[Message], rewinds: Sequence[Rewind]) -> list[Message]:
    """The transcript without the ranges ``/rewind`` hid."""
    position = {m.id: i for i, m in enumerate(transcript)}
    gone: set[int] = set()
    for rewind in rewinds:
        start, end = position.get(rewind.from_id), position.get(rewind.through_id)
        if start is not None and end is not None:
            gone.update(range(start, end + 1))
    return [m for i, m in enumerate(transcript) if i not in gone]


def _apply_summary(messages: list[Message], summary: Summary) -> list[Message]:
    ids = [m.id for m in messages]
    if summary.through_id not in ids:
        return messages
    tail = messages[ids.index(summary.through_id) + 1 :]
    head = Message(
        "user",
        (Text(summary_text(summary)),),
        id=summary.id,
        created_at=summary.at,
        origin="summary",
    )
    if tail and tail[0].role == "user" and not tail[0].tool_results:
        merged = tail[0].replace_parts(head.parts + tail[0].parts)
        return [merged, *tail[1:]]
    return [head, *tail]


def _apply_clears(message: Message, rewrites: _Rewrites) -> Message:
    changed = False
    parts: list[Part] = []
    strip_thinking = message.id in rewrites.stripped
    images = 0
    for part in message.parts:
        if strip_thinking and isinstance(part, Thinking):
            changed = True
            continue
        if isinstance(part, Image):
            images += 1
            ref = image_ref(message.id, images - 1)
            if ref in rewrites.media:
                parts.append(Text(cleared_media_text(part)))
                changed = True
                continue
            if ref in rewrites.images:
                parts.append(Text(cleared_image_text(part.media_type)))
                changed = True
                continue
        if isinstance(part, ToolResult) and not part.cleared:
            replacement = _result_text(part.call_id, rewrites)
            if replacement is not None:
                parts.append(ToolResult(part.call_id, part.name, replacement, part.is_error, True))
                changed = True
                continue
        parts.append(part)
    return message.replace_parts(tuple(parts)) if changed else message


def _result_text(call_id: str, rewrites: _Rewrites) -> str | None:
    """What a result's content becomes: the sentinel, a pointer, or None (unchanged)."""
    if call_id in rewrites.cleared_calls:
        return cleared_result_text(call_id)
    return rewrites.pointers.get(call_id)
