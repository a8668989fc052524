"""The pairing invariant: repairs at load and unique call ids on receipt."""

from __future__ import annotations

from lull.engine.sessions.pairing import LOST_RESULT, fresh_id, repair_pairing, unique_call_ids
from lull.model.messages import Message, Text, ToolCall, ToolResult, user_text


def _calls(*ids: str) -> Message:
    return Message("assistant", tuple(ToolCall(i, "read_file", {"path": i}) for i in ids))


def _results(*ids: str) -> Message:
    return Message("user", tuple(ToolResult(i, "read_file", f"result of {i}") for i in ids))


def _answer(text: str = "done") -> Message:
    return Message("assistant", (Text(text),))


def test_an_intact_transcript_comes_back_as_the_same_objects() -> None:
    messages = [user_text("go"), _calls("a", "b"), _results("b", "a"), _answer(), user_text("x")]
    repaired, report = repair_pairing(messages)
    assert all(x is y for x, y in zip(repaired, messages, strict=True))
    assert report.describe() == []


def test_open_calls_at_the_end_are_left_for_the_next_turn() -> None:
    messages = [user_text("go"), _calls("a")]
    repaired, report = repair_pairing(messages)
    assert repaired == messages and report.describe() == []


def test_a_call_whose_result_line_was_lost_gets_a_lost_result_before_what_follows() -> None:
    calls = _calls("a", "b")
    repaired, report = repair_pairing([user_text("go"), calls, _results("a"), _answer()])
    assert [m.role for m in repaired] == ["user", "assistant", "user", "user", "assistant"]
    [lost] = repaired[3].tool_results
    assert (lost.call_id, lost.content, lost.is_error) == ("b", LOST_RESULT, True)
    assert repaired[3].origin == "synthetic" and repaired[3].id == f"{calls.id}_lost"
    assert report.synthetic == ["b"]


def test_a_result_whose_call_line_was_lost_is_dropped_with_its_empty_message() -> None:
    repaired, report = repair_pairing([user_text("go"), _results("a"), _answer()])
    assert [m.role for m in repaired] == ["user", "assistant"]
    assert report.dropped_results == ["a"] and report.dropped_messages == 1
    assert report.describe() == [
        "dropped 1 tool result(s) that answer no call (a)",
        "dropped 1 empty message(s)",
    ]


def test_a_second_result_for_one_call_is_dropped() -> None:
    repaired, report = repair_pairing([_calls("a"), _results("a"), _results("a"), _answer()])
    assert len([p for m in repaired for p in m.tool_results]) == 1
    assert report.dropped_results == ["a"]


def test_results_after_a_prompt_answer_nothing_and_the_call_gets_a_lost_result() -> None:
    repaired, report = repair_pairing([_calls("a"), user_text("hm?"), _results("a")])
    assert [(m.role, m.text, m.tool_results) for m in repaired[1:]] == [
        ("user", "", (ToolResult("a", "read_file", LOST_RESULT, is_error=True),)),
        ("user", "hm?", ()),
    ]
    assert report.synthetic == ["a"] and report.dropped_results == ["a"]


def test_a_reused_call_id_is_renamed_and_its_results_follow() -> None:
    messages = [_calls("x"), _results("x"), _calls("x", "x"), _results("x", "x"), _answer()]
    repaired, report = repair_pairing(messages)
    assert [c.id for m in repaired for c in m.tool_calls] == ["x", "x_2", "x_3"]
    assert [r.call_id for m in repaired for r in m.tool_results] == ["x", "x_2", "x_3"]
    assert report.renamed == [("x", "x_2"), ("x", "x_3")]


def test_unique_call_ids_renames_against_the_session_and_each_other() -> None:
    used = {"call_0"}
    parts = unique_call_ids((Text("hi"), *_calls("call_0", "call_0", "").parts), used)
    assert [p.id for p in parts if isinstance(p, ToolCall)] == ["call_0_2", "call_0_3", "call_2"]
    assert used == {"call_0", "call_0_2", "call_0_3", "call_2"}
    assert fresh_id("new", used) == "new"
