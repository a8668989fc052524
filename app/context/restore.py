"""What ``/context restore`` may undo, and the history of compressions for ``/context``.

Every context edit is reversible: clears (idle, emergency), the light step's pointers,
summaries and ``/rewind``'s conversation part. A summary is an archive checkpoint: the
session file keeps every message it replaced, so undoing it (a :class:`Restore` naming it)
gives back exactly the view it replaced, and the summary before it (if any) is in force
again. A rewind is undone only when asked for by name (scope "rewind"): it was the user's
own choice, not lull's. Pure functions; the engine
checks the restored view against the window before recording anything
(``engine/fitting/restore.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from lull.context.view import active_edits
from lull.model.edits import (
    ClearMedia,
    ClearThinking,
    ClearToolResults,
    ContextEdit,
    Restore,
    Rewind,
    Summary,
    Supersede,
)

RestoreScope = Literal["all", "clears", "compression", "rewind"]
RESTORE_SCOPES: tuple[RestoreScope, ...] = ("all", "clears", "compression", "rewind")
CompressionState = Literal["in force", "restored", "covered"]


def restorable(edits: Sequence[ContextEdit], scope: RestoreScope) -> list[ContextEdit]:
    """The edits in force that ``scope`` undoes: every clear and pointer ("clears"), the
    latest compression ("compression"), both ("all"), or the latest ``/rewind``'s hiding of
    the conversation ("rewind")."""
    live = active_edits(edits)
    clears = [
        e for e in live if isinstance(e, ClearToolResults | ClearThinking | Supersede | ClearMedia)
    ]
    summaries: list[ContextEdit] = [e for e in live if isinstance(e, Summary)]
    latest = summaries[-1:]
    match scope:
        case "clears":
            return list(clears)
        case "compression":
            return latest
        case "all":
            return [*clears, *latest]
        case "rewind":
            rewinds: list[ContextEdit] = [e for e in live if isinstance(e, Rewind)]
            return rewinds[-1:]


def parse_scope(text: str) -> RestoreScope | None:
    """The scope ``/context restore TEXT`` names ("" means "all"), or None if unknown."""
    wanted = text.strip().lower() or "all"
    return next((scope for scope in RESTORE_SCOPES if scope == wanted), None)


def restore_edit(edits: Sequence[ContextEdit], at: float) -> Restore:
    """A :class:`Restore` undoing ``edits``."""
    return Restore(tuple(e.id for e in edits), at=at)


@dataclass(frozen=True)
class CompressionRecord:
    """One compression of the session and what became of it."""

    number: int
    summary: Summary
    state: CompressionState


def compression_history(edits: Sequence[ContextEdit]) -> list[CompressionRecord]:
    """Every compression made in the session, oldest first: "in force" (the summary the view
    starts with), "restored" (undone), or "covered" (a later summary replaced it too)."""
    live = active_edits(edits)
    live_ids = {e.id for e in live}
    latest = next((e for e in reversed(live) if isinstance(e, Summary)), None)
    records = []
    summaries = [e for e in edits if isinstance(e, Summary)]
    for number, summary in enumerate(summaries, 1):
        state: CompressionState = "restored"
        if summary.id in live_ids:
            state = "in force" if summary is latest else "covered"
        records.append(CompressionRecord(number, summary, state))
    return records
