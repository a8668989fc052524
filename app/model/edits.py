"""Context edits: recorded, reversible changes to what the model sees.

The transcript is never edited. The model sees a *view*: the transcript with
an ordered list of edits applied (``app/context/view.py``). Edits are stored in
the session file, so a resumed session reproduces the exact same view.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lull.model.messages import new_id

ClearReason = Literal["idle", "emergency", "masking"]
"""Why content was cleared: an idle gap, a prompt that would not fit the window, or masking
inside a long turn once it pays (``context/masking.py``)."""
SummaryReason = Literal["auto", "overflow", "manual"]
"""Why a summary was made: the threshold, a provider's "prompt too long", or /compact."""


@dataclass(frozen=True, slots=True)
class ClearToolResults:
    """Replace the content of these tool results with the cleared sentinel."""

    call_ids: tuple[str, ...]
    reason: ClearReason = "idle"
    tokens_saved: int = 0
    kept: int = 0
    gap_minutes: float = 0.0
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["clear_tool_results"] = "clear_tool_results"
    images: tuple[str, ...] = ()
    """Inline images cleared by the same rule, as :func:`image_ref` strings."""
    kept_for: tuple[str, ...] = ()
    """The older results kept because the work still uses them, each as
    ``"<call id>: <why>"`` (``context/working_set.py``)."""


@dataclass(frozen=True, slots=True)
class ClearThinking:
    """Drop thinking parts from these assistant messages."""

    message_ids: tuple[str, ...]
    reason: ClearReason = "idle"
    tokens_saved: int = 0
    gap_minutes: float = 0.0
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["clear_thinking"] = "clear_thinking"


@dataclass(frozen=True, slots=True)
class Summary:
    """Replace every message up to and including ``through_id`` by a summary.

    The summary is an archive checkpoint: the session file keeps every message it replaced
    (``replaced`` of them, ``head_tokens`` tokens), and a :class:`Restore` naming it brings
    them back. ``pinned`` holds the critical content of the replaced part, verbatim (what the
    user typed, unresolved errors, session notes), shown after the summary text.
    """

    through_id: str
    text: str
    tokens_before: int = 0
    tokens_after: int = 0
    reason: SummaryReason = "auto"
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["summary"] = "summary"
    pinned: str = ""
    replaced: int = 0
    head_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Supersede:
    """The light step: replace superseded tool results by a pointer to what supersedes them.

    ``pointers[i]`` is the text the result of ``call_ids[i]`` is replaced with (a file read
    again later, a read a later write made stale, an exact duplicate output).
    """

    call_ids: tuple[str, ...]
    pointers: tuple[str, ...]
    tokens_saved: int = 0
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["supersede"] = "supersede"


@dataclass(frozen=True, slots=True)
class ClearMedia:
    """The media window: replace these inline images (:func:`image_ref` strings) by
    ``[Old image cleared: <type>, <size>]``; only the newest ``keep`` messages with images
    keep theirs."""

    images: tuple[str, ...]
    keep: int = 0
    tokens_saved: int = 0
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["clear_media"] = "clear_media"


@dataclass(frozen=True, slots=True)
class Restore:
    """Undo earlier clearing edits (by id) from here on."""

    edit_ids: tuple[str, ...]
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["restore"] = "restore"


@dataclass(frozen=True, slots=True)
class Rewind:
    """``/rewind``: hide the messages from ``from_id`` through ``through_id`` (the conversation
    goes back to before that prompt; the session file keeps every message)."""

    from_id: str
    through_id: str
    hidden: int = 0
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["rewind"] = "rewind"


ContextEdit = ClearToolResults | ClearThinking | Summary | Supersede | ClearMedia | Restore | Rewind

_KINDS: dict[str, type[Any]] = {
    "clear_tool_results": ClearToolResults,
    "clear_thinking": ClearThinking,
    "summary": Summary,
    "supersede": Supersede,
    "clear_media": ClearMedia,
    "restore": Restore,
    "rewind": Rewind,
}


def image_ref(message_id: str, ordinal: int) -> str:
    """How a clear names one inline image: its message and its place among that message's
    images (``m_1#0`` is the first image of message ``m_1``; text added around it, such as a
    summary merged into the message, does not move it)."""
    return f"{message_id}#{ordinal}"


def edit_to_dict(edit: ContextEdit) -> dict[str, Any]:
    """A JSON-ready dict for one edit (tuples become lists)."""
    out: dict[str, Any] = {}
    for name in edit.__dataclass_fields__:
        value = getattr(edit, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def edit_from_dict(data: Mapping[str, Any]) -> ContextEdit:
    """The edit an ``edit_to_dict`` dict stands for."""
    cls = _KINDS[str(data["kind"])]
    kwargs = {
        k: tuple(v) if isinstance(v, list) else v
        for k, v in data.items()
        if k in cls.__dataclass_fields__ and k != "kind"
    }
    edit: ContextEdit = cls(**kwargs)
    return edit
