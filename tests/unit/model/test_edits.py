"""Context edits survive the session file: every kind round-trips through its dict."""

from __future__ import annotations

from app.model.edits import (
    ClearThinking,
    ClearToolResults,
    Restore,
    Summary,
    edit_from_dict,
    edit_to_dict,
)


def test_edits_round_trip_through_dicts() -> None:
    for edit in (
        ClearToolResults(("a", "b"), tokens_saved=3),
        ClearThinking(("m",)),
        Summary("x", "s"),
        Restore(("e",)),
    ):
        assert edit_from_dict(edit_to_dict(edit)) == edit
