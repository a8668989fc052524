"""Property tests: over random histories and any sequence of idle clears, light steps,
emergency clears, compressions and restores, critical content is never lost (what the user
typed, open errors and notes stay in the view or in the summary's pinned block, verbatim),
error results are never cleared, and the notes the model sees are the session's notes."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from lull.context.compress_plan import clear_result, plan_emergency_clear, split_points
from lull.context.estimate import estimate_part_tokens
from lull.context.idle import IdlePolicy, plan_idle_cleanup
from lull.context.light import plan_light
from lull.context.notes import notes_from
from lull.context.pinning import pinned_block, user_prompts
from lull.context.restore import restorable, restore_edit
from lull.context.tiers import classify, unresolved_errors
from lull.context.view import build_view, live_summary
from lull.model.edits import ClearToolResults, ContextEdit, Summary
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.notes import user_note_text
from tests.unit.context.builders import NOW, ago

PATHS = ("a.py", "b.py", "c.py")
TOOLS = ("read_file", "edit", "write_file", "run_shell_command", "grep_search", "note")


@st.composite
def steps(draw: st.DrawFn, number: int) -> list[Message]:
    """One model step: a tool call (any tool, on a few files) and its result."""
    name = draw(st.sampled_from(TOOLS))
    call_id = f"c{number}"
    error = name != "note" and draw(st.booleans())
    args: dict[str, object]
    if name == "note":
        args = {"key": draw(st.sampled_from(("k1", "k2"))), "text": f"fact {number}"}
        if draw(st.integers(0, 4)) == 0:
            args = {"key": args["key"], "action": "delete"}
    elif name == "run_shell_command":
        args = {"command": draw(st.sampled_from(("make test", "ls")))}
    elif name == "grep_search":
        args = {"pattern": "x"}
    else:
        args = {"path": draw(st.sampled_from(PATHS))}
    size = draw(st.sampled_from((5, 200, 800)))
    content = draw(st.sampled_from(("same output ", f"output {number} "))) * (size // 10)
    return [
        Message(
            "assistant", (ToolCall(call_id, name, args),), origin="model", provider="anthropic"
        ),
        Message("user", (ToolResult(call_id, name, content, is_error=error),), origin="tool"),
    ]


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    """Turns of a user prompt, some steps, an answer; now and then a note the user adds."""
    messages: list[Message] = []
    number = 0
    for turn in range(draw(st.integers(1, 6))):
        text = draw(st.sampled_from(("use tabs", "fix the bug\nin a.py", "go on")))
        messages.append(Message("user", (Text(f"{text} ({turn})"),)))
        for _ in range(draw(st.integers(0, 4))):
            number += 1
            messages += draw(steps(number))
        messages.append(Message("assistant", (Text(f"done {turn}"),), origin="model"))
        if draw(st.integers(0, 5)) == 0:
            note = user_note_text("k2", f"user fact {turn}")
            messages.append(Message("user", (Text(note),), origin="synthetic"))
    return messages


def saving(result: ToolResult) -> int:
    return estimate_part_tokens(result) - estimate_part_tokens(clear_result(result))


def pointer_saving(result: ToolResult, pointer: str) -> int:
    replaced = ToolResult(result.call_id, result.name, pointer, result.is_error, True)
    return estimate_part_tokens(result) - estimate_part_tokens(replaced)


def apply(
    operation: str, transcript: list[Message], edits: list[ContextEdit], draw: st.DrawFn
) -> None:
    """One context step, as the engine would take it."""
    view = build_view(transcript, edits)
    match operation:
        case "idle":
            keep = draw(st.integers(0, 3))
            policy = IdlePolicy(0, 0, keep, frozenset(TOOLS))  # even "note" listed: never cleared
            last = ago(draw(st.sampled_from((1, 90))))
            edits += plan_idle_cleanup(
                view,
                policy=policy,
                last_response_at=last,
                now=NOW,
                thinking_rule="all",
                edits=edits,
            )
        case "light":
            if (edit := plan_light(view, pointer_saving, at=NOW)) is not None:
                edits.append(edit)
        case "emergency":
            ids, _ = plan_emergency_clear(
                view, draw(st.integers(1, 10_000)), saving, classify(view)
            )
            if ids:
                edits.append(ClearToolResults(tuple(ids), reason="emergency"))
        case "compress":
            points = split_points(view, {m.id for m in transcript})
            if points:
                through = view[draw(st.sampled_from(points)) - 1].id
                prefix = transcript[: [m.id for m in transcript].index(through) + 1]
                pinned = pinned_block(prefix, unresolved_errors(transcript), notes_from(prefix))
                edits.append(Summary(through, "a summary", pinned=pinned))
        case "restore":
            scope = draw(st.sampled_from(("all", "clears", "compression")))
            if undo := restorable(edits, scope):
                edits.append(restore_edit(undo, NOW))


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def assert_critical_kept(
    transcript: Sequence[Message], view: Sequence[Message], edits: Sequence[ContextEdit]
) -> None:
    shown = {m.id for m in view}
    pinned = (live_summary(edits) or Summary("", "")).pinned
    for message in transcript:
        if message.is_user_prompt and message.origin == "user" and message.id not in shown:
            (typed,) = user_prompts([message])
            assert quoted(typed).split("> ", 1)[1] in pinned  # "N. text", word for word
    results = {r.call_id: r for m in view for r in m.tool_results}
    for message in transcript:
        for result in message.tool_results:
            if result.call_id in unresolved_errors(transcript):
                if result.call_id in results:
                    assert results[result.call_id] == result  # verbatim, never cleared
                else:
                    assert quoted(result.content) in pinned
    assert not any(r.is_error and r.cleared for r in results.values())
    assert not any(r.name == "note" and r.cleared for r in results.values())


def assert_notes_seen(
    transcript: Sequence[Message], view: Sequence[Message], edits: Sequence[ContextEdit]
) -> None:
    """Each note in force is in the view as the call or user message that made it, or in the
    pinned block of the summary that replaced it."""
    shown = {m.id for m in view}
    pinned = (live_summary(edits) or Summary("", "")).pinned
    for note in notes_from(transcript).values():
        assert note.message_id in shown or f"- {note.key}: {note.text}" in pinned


@settings(max_examples=200, deadline=None)
@given(transcript=histories(), data=st.data())
def test_critical_content_and_notes_survive_any_sequence_of_steps(
    transcript: list[Message], data: st.DataObject
) -> None:
    edits: list[ContextEdit] = []
    operations = data.draw(
        st.lists(st.sampled_from(("idle", "light", "emergency", "compress", "restore")), max_size=8)
    )
    for operation in operations:
        apply(operation, transcript, edits, data.draw)
        view = build_view(transcript, edits)
        assert_critical_kept(transcript, view, edits)
        assert_notes_seen(transcript, view, edits)
