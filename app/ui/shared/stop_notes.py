"""What a front end tells the user when a turn ended for a reason other than a finished answer."""

from __future__ import annotations

STOP_NOTES = {
    "max_tokens": "the answer stopped at the output token limit (model.maxOutputTokens)",
    "refusal": "the model declined to answer",
}


def stop_note(stop_reason: str, detail: str = "") -> str | None:
    """The one-line note for ``stop_reason`` (lull's own ``detail`` when it stopped the turn
    itself), or None when there is nothing to say."""
    return detail or STOP_NOTES.get(stop_reason)


def with_repairs(summary: str, repairs: tuple[str, ...]) -> str:
    """A tool call's summary with what lull repaired in its arguments, if anything."""
    if not repairs:
        return summary
    fixed = f"repaired: {'; '.join(repairs)}"
    return f"{summary}  [{fixed}]" if summary else f"[{fixed}]"
