"""What a front end tells the user when a turn ended for a reason other than a finished answer."""

from __future__ import annotations

STOP_NOTES = {
    "max_tokens": "the answer stopped at the output token limit (model.maxOutputTokens)",
    "refusal": "the model declined to answer",
}


def stop_note(stop_reason: str) -> str | None:
    """The one-line note for ``stop_reason``, or None when there is nothing to say."""
    return STOP_NOTES.get(stop_reason)
