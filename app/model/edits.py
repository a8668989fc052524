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

from app.model.messages import new_id

ClearReason = Literal["idle", "emergency"]
"""Why content was cleared: an idle gap, or a prompt that would not fit the window."""
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
    """Replace every message up to and including ``through_id`` by a summary."""

    through_id: str
    text: str
    tokens_before: int = 0
    tokens_after: int = 0
    reason: SummaryReason = "auto"
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["summary"] = "summary"


@dataclass(frozen=True, slots=True)
class Restore:
    """Undo earlier clearing edits (by id) from here on."""

    edit_ids: tuple[str, ...]
    id: str = field(default_factory=lambda: new_id("edit"))
    at: float = field(default_factory=time.time)
    kind: Literal["restore"] = "restore"


ContextEdit = ClearToolResults | ClearThinking | Summary | Restore

_KINDS: dict[str, type[Any]] = {
    "clear_tool_results": ClearToolResults,
    "clear_thinking": ClearThinking,
    "summary": Summary,
    "restore": Restore,
}


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
