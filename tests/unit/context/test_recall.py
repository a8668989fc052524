"""Looking up a recall id: a tool call's original output, or the span a summary replaced."""

from __future__ import annotations

import pytest

from lull.context.recall import recall, render_message
from lull.context.view import build_view
from lull.model.edits import ClearToolResults, Summary
from lull.model.messages import Message, Text, cleared_result_text
from tests.unit.context.builders import reads


def test_a_cleared_result_comes_back_from_the_transcript() -> None:
    history = reads("a", "b")
    clear = ClearToolResults(call_ids=("a",))
    view = build_view(history, [clear])
    assert view[2].tool_results[0].content == cleared_result_text("a")
    original = history[2].tool_results[0].content
    assert recall(history, [clear], "a") == original
    assert recall(history, [clear], "  a ") == original  # stray blanks are forgiven


def test_a_summary_id_returns_every_message_it_replaced() -> None:
    history = [*reads("a"), Message("assistant", (Text("done"),)), *reads("b")]
    summary = Summary(through_id=history[3].id, text="read a")
    text = recall(history, [summary], summary.id)
    assert text == "\n\n".join(render_message(m) for m in history[:4])
    assert "(tool call a: read_file" in text and "[assistant]\ndone" in text


def test_an_unknown_id_says_what_to_pass() -> None:
    with pytest.raises(LookupError, match=r"no tool call or summary with id 'x'"):
        recall(reads("a"), [], "x")
