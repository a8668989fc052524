"""Context edits survive the session file: every kind round-trips through its dict."""

from __future__ import annotations

from lull.model.edits import (
    ClearThinking,
    ClearToolResults,
    Restore,
    Summary,
    Supersede,
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


def test_new_edit_fields_round_trip_and_old_files_still_load() -> None:
    for edit in (
        ClearToolResults(("a",), images=("m_1#0",)),
        Summary("x", "s", pinned="## Kept verbatim", replaced=12, head_tokens=3000),
        Supersede(("c1", "c2"), ("[p1]", "[p2]"), tokens_saved=40),
    ):
        assert edit_from_dict(edit_to_dict(edit)) == edit
    old = {"kind": "summary", "through_id": "x", "text": "s", "id": "e", "at": 1.0}
    assert edit_from_dict(old) == Summary("x", "s", id="e", at=1.0)
