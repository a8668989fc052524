"""``/context restore``: undo clears, the latest compression or the latest ``/rewind``,
checked against the window.

The restored view is estimated before anything is recorded; a restore that would bring
the context to the compression threshold or past the window is refused, saying why (it
would be compressed again at once, or not fit at all), and the session is left as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from lull.context.restore import RestoreScope, restorable, restore_edit
from lull.engine.fitting.fitter import ContextFitter
from lull.model.edits import ContextEdit, Restore, Rewind, Summary
from lull.model.provider import ModelRequest


@dataclass(frozen=True)
class RestoreOutcome:
    """What a restore did: the edit recorded (None when nothing was) and one line saying so."""

    edit: Restore | None
    line: str


def restore_context(
    fitter: ContextFitter, shape: ModelRequest, scope: RestoreScope, now: float
) -> RestoreOutcome:
    """Undo what ``scope`` names, if the restored context fits under the threshold."""
    session = fitter.session
    undo = restorable(session.edits, scope)
    if not undo:
        return RestoreOutcome(None, f"nothing to restore: {_nothing(scope)}")
    edit = restore_edit(undo, now)
    budget = fitter.budget(shape)
    after = fitter.estimate_with(shape, edit)
    if budget.over_threshold(after) or budget.over_limit(after):
        why = (
            "past what the window holds"
            if budget.over_limit(after)
            else f"at or above the compression threshold ({budget.percent(budget.trigger)}%), "
            "so it would be compressed again before the next request"
        )
        hint = _narrower(fitter, shape, scope, now)
        return RestoreOutcome(
            None,
            f"cannot restore {_what(undo)}: the context would be ~{after:,} tokens "
            f"({budget.percent(after)}% of the {budget.window:,}-token window), {why}; "
            f"nothing was changed{hint}",
        )
    session.add_edit(edit)
    return RestoreOutcome(edit, _done(undo, after, budget.percent(after)))


def _what(undo: list[ContextEdit]) -> str:
    """What a restore of ``undo`` brings back, in words."""
    names = []
    if any(not isinstance(e, Summary | Rewind) for e in undo):
        names.append("the cleared content")
    if any(isinstance(e, Summary) for e in undo):
        names.append("the latest compression")
    if any(isinstance(e, Rewind) for e in undo):
        names.append("the conversation the latest /rewind hid")
    return " and ".join(names)


def _nothing(scope: RestoreScope) -> str:
    match scope:
        case "clears":
            return "no tool results or thinking are cleared"
        case "compression":
            return "no compression is in force"
        case "all":
            return "nothing is cleared or compressed"
        case "rewind":
            return "no /rewind hides part of the conversation"


def _narrower(fitter: ContextFitter, shape: ModelRequest, scope: RestoreScope, now: float) -> str:
    """A hint naming a narrower restore that would fit ("" when none does)."""
    if scope != "all":
        return ""
    budget = fitter.budget(shape)
    for narrower in ("compression", "clears"):
        undo = restorable(fitter.session.edits, narrower)
        if not undo:
            continue
        after = fitter.estimate_with(shape, restore_edit(undo, now))
        if not budget.over_threshold(after) and not budget.over_limit(after):
            return f" (/context restore {narrower} would fit: ~{after:,} tokens)"
    return ""


def _done(undone: list[ContextEdit], after: int, percent: int) -> str:
    summaries = [e for e in undone if isinstance(e, Summary)]
    rewinds = [e for e in undone if isinstance(e, Rewind)]
    clears = len(undone) - len(summaries) - len(rewinds)
    parts = []
    if clears:
        parts.append(f"{clears} cleared edit(s)")
    if summaries:
        parts.append(f"the latest compression ({summaries[0].replaced} messages)")
    if rewinds:
        parts.append(f"the {rewinds[0].hidden} message(s) the latest /rewind hid")
    return (
        f"restored {' and '.join(parts)}; the next request sends the original content "
        f"(~{after:,} tokens, {percent}% of the window)"
    )
