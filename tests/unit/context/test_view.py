"""The view: edits apply by id, restore undoes them, untouched messages are shared."""

from __future__ import annotations

from lull.context.view import SUMMARY_PREFIX, appended_view, build_view
from lull.model.edits import (
    ClearThinking,
    ClearToolResults,
    ContextEdit,
    Restore,
    Rewind,
    Summary,
    Supersede,
)
from lull.model.messages import (
    Image,
    Message,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    cleared_image_text,
    is_cleared_text,
)


def _history() -> list[Message]:
    return [
        Message("user", (Text("q1"),), id="u1"),
        Message(
            "assistant",
            (Thinking("hmm", "s"), ToolCall("c1", "read_file", {"path": "a"})),
            id="a1",
        ),
        Message("user", (ToolResult("c1", "read_file", "content"),), id="t1"),
        Message("assistant", (Text("done"),), id="a2"),
        Message("user", (Text("q2"),), id="u2"),
    ]


def test_clear_tool_results_replaces_content_and_keeps_pairing() -> None:
    history = _history()
    view = build_view(history, [ClearToolResults(("c1",))])
    result = view[2].tool_results[0]
    assert is_cleared_text(result.content)
    assert result.cleared and result.call_id == "c1" and result.name == "read_file"
    assert view[1].tool_calls == history[1].tool_calls
    assert view[0] is history[0]
    assert history[2].tool_results[0].content == "content"  # transcript untouched


def test_clear_thinking_and_restore() -> None:
    history = _history()
    clear = ClearThinking(("a1",))
    assert not any(isinstance(p, Thinking) for p in build_view(history, [clear])[1].parts)
    restored = build_view(history, [clear, Restore((clear.id,))])
    assert restored == history


def test_summary_replaces_the_head() -> None:
    history = _history()
    view = build_view(history, [Summary("a2", "did things")])
    assert len(view) == 1
    assert view[0].text.startswith(SUMMARY_PREFIX)
    assert view[0].text.endswith("q2")


def test_cleared_images_and_light_pointers_are_applied_and_restorable() -> None:
    shot = Message("user", (Text("look"), Image("image/png", "AAAA"), Image("image/jpeg", "BBBB")))
    read = Message("user", (ToolResult("c1", "read_file", "x" * 400),), origin="tool")
    clear = ClearToolResults((), images=(f"{shot.id}#1",))
    light = Supersede(("c1",), ("[Superseded: a.py]",))
    view = build_view([shot, read], [clear, light])
    assert view[0].parts[1] == Image("image/png", "AAAA")
    assert view[0].parts[2] == Text(cleared_image_text("image/jpeg"))
    result = view[1].tool_results[0]
    assert result.content == "[Superseded: a.py]" and result.cleared
    assert build_view([shot, read], [clear, light, Restore((clear.id, light.id))]) == [shot, read]


def test_the_view_of_appended_messages_ends_the_whole_view() -> None:
    history = _history()
    later = [
        Message("assistant", (ToolCall("c2", "read_file", {"path": "b"}),), id="a3"),
        Message("user", (ToolResult("c2", "read_file", "more"),), id="t2"),
        Message("user", (Text("q3"),), id="u3"),
    ]
    transcript = [*history, *later]
    # each edit set, and the first message added after it (the edits name none after it)
    edit_sets: list[tuple[list[ContextEdit], int]] = [
        ([], 1),
        ([ClearToolResults(("c1",)), ClearThinking(("a1",))], 3),
        ([Summary("t1", "the start")], 4),
        ([ClearToolResults(("c1",)), Rewind("u1", "a1")], 5),
    ]
    for edits, first in edit_sets:
        for start in range(first, len(transcript)):
            appended = appended_view(transcript, edits, start)
            assert appended is not None
            whole = build_view(transcript, edits)
            assert [*build_view(transcript[:start], edits), *appended] == whole


def test_a_summary_through_the_last_message_takes_the_next_prompt_into_its_head() -> None:
    history = _history()
    transcript = [*history, Message("user", (Text("q3"),), id="u3")]
    edits: list[ContextEdit] = [Summary("u2", "everything so far")]
    assert appended_view(transcript, edits, len(history)) is None
    whole = build_view(transcript, edits)
    assert len(whole) == 1 and whole[0].text.endswith("q3")  # one message: summary, prompt
    # the same when a /rewind hid everything after the summary
    later = [*transcript[:-1], Message("user", (Text("q4"),), id="u4")]
    hidden: list[ContextEdit] = [Summary("t1", "the start"), Rewind("a2", "u2")]
    assert appended_view(later, hidden, len(later) - 1) is None
    whole = build_view(later, hidden)
    assert len(whole) == 1 and whole[0].text.endswith("q4")
