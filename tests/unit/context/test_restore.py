"""What /context restore may undo, restore ∘ compress = identity on the view, and the history of
compressions /context lists."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lull.context.compress_plan import split_points
from lull.context.restore import compression_history, parse_scope, restorable, restore_edit
from lull.context.view import build_view
from lull.model.edits import (
    ClearThinking,
    ClearToolResults,
    ContextEdit,
    Rewind,
    Summary,
    Supersede,
)
from lull.model.messages import Message, Text, ToolCall, ToolResult
from tests.unit.context.builders import NOW, assistant, results, user


def history(turns: int) -> list[Message]:
    messages: list[Message] = []
    for n in range(turns):
        messages += [
            user(f"question {n}"),
            assistant(ToolCall(f"c{n}", "read_file", {"path": f"f{n}.py"})),
            results(ToolResult(f"c{n}", "read_file", "x" * 200)),
            assistant(Text(f"answer {n}")),
        ]
    return messages


def test_each_scope_undoes_its_edits_in_force() -> None:
    clear = ClearToolResults(("c0",))
    thinking = ClearThinking(("m",))
    first, second = Summary("x", "one"), Summary("y", "two")
    light = Supersede(("c1",), ("[p]",))
    edits: list[ContextEdit] = [clear, first, thinking, light, second]
    assert restorable(edits, "clears") == [clear, thinking, light]
    assert restorable(edits, "compression") == [second]
    assert restorable(edits, "all") == [clear, thinking, light, second]
    edits.append(restore_edit([second], NOW))
    assert restorable(edits, "compression") == [first]  # the one before is in force again
    assert [parse_scope(t) for t in ("", " Clears ", "compression", "x")] == [
        "all",
        "clears",
        "compression",
        None,
    ]


def test_a_rewind_is_undone_only_by_name_and_the_latest_first() -> None:
    clear = ClearToolResults(("c0",))
    older, latest = Rewind("u1", "a1", hidden=2), Rewind("u3", "a3", hidden=4)
    edits: list[ContextEdit] = [older, clear, latest]
    assert restorable(edits, "all") == [clear]
    assert restorable(edits, "rewind") == [latest]
    edits.append(restore_edit([latest], NOW))
    assert restorable(edits, "rewind") == [older]
    edits.append(restore_edit([older], NOW))
    assert restorable(edits, "rewind") == []
    assert parse_scope(" Rewind ") == "rewind"
    transcript = history(2)
    hidden = build_view(transcript, [Rewind(transcript[0].id, transcript[3].id, hidden=4)])
    assert len(hidden) == 4
    rewind = Rewind(transcript[0].id, transcript[3].id, hidden=4)
    assert build_view(transcript, [rewind, restore_edit([rewind], NOW)]) == transcript


def test_the_history_says_what_became_of_each_compression() -> None:
    first, second, third = Summary("a", "1", replaced=4), Summary("b", "2"), Summary("c", "3")
    edits: list[ContextEdit] = [first, second, restore_edit([second], NOW), third]
    states = [(r.number, r.state) for r in compression_history(edits)]
    assert states == [(1, "covered"), (2, "restored"), (3, "in force")]


@settings(max_examples=80, deadline=None)
@given(turns=st.integers(2, 8), data=st.data())
def test_restore_after_compress_is_the_identity_on_the_view(
    turns: int, data: st.DataObject
) -> None:
    messages = history(turns)
    edits: list[ContextEdit] = []
    if data.draw(st.booleans()):
        edits.append(ClearToolResults((f"c{data.draw(st.integers(0, turns - 1))}",)))
    for _ in range(data.draw(st.integers(1, 3))):  # compress, maybe several times
        view = build_view(messages, edits)
        points = split_points(view, {m.id for m in messages})
        if not points:
            break
        split = data.draw(st.sampled_from(points))
        before = build_view(messages, edits)
        summary = Summary(view[split - 1].id, "summary", pinned="pinned", replaced=split)
        edits.append(summary)
        assert build_view(messages, edits) != before
        if data.draw(st.booleans()):
            edits.append(restore_edit(restorable(edits, "compression"), NOW))
            assert build_view(messages, edits) == before
