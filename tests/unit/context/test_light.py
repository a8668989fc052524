"""The light step: a file read again in full, a read a later write made stale and exact
duplicate outputs become pointers; the newest copy, errors, notes and tiny results stay."""

from __future__ import annotations

from lull.context.estimate import estimate_messages_tokens, estimate_part_tokens
from lull.context.light import plan_light
from lull.context.repeats import unchanged_read_pointer
from lull.context.view import build_view
from lull.model.edits import Restore
from lull.model.messages import Message, ToolCall, ToolResult
from tests.unit.context.builders import NOW, assistant, result_by_id, results, user

CONTENT = "def f():\n    return 1\n" * 40


def step(
    call_id: str,
    name: str = "read_file",
    content: str = CONTENT,
    *,
    error: bool = False,
    **args: object,
) -> list[Message]:
    return [
        assistant(ToolCall(call_id, name, args)),
        results(ToolResult(call_id, name, content, is_error=error)),
    ]


def saving(result: ToolResult, pointer: str) -> int:
    replaced = ToolResult(result.call_id, result.name, pointer, result.is_error, True)
    return estimate_part_tokens(result) - estimate_part_tokens(replaced)


def test_a_file_read_again_in_full_supersedes_the_older_copy() -> None:
    view = [user("go"), *step("r1", path="a.py", limit=20), *step("r2", path="./a.py")]
    edit = plan_light(view, saving, at=NOW)
    assert edit is not None and edit.call_ids == ("r1",)
    assert edit.pointers[0].startswith("[Superseded: a.py was read again in full later (call r2)")
    after = build_view(view, [edit])
    assert result_by_id(after, "r1").content == edit.pointers[0]
    assert result_by_id(after, "r2").content == CONTENT  # the newest copy stays
    assert estimate_messages_tokens(view) - estimate_messages_tokens(after) == edit.tokens_saved


def test_a_partial_read_later_does_not_supersede() -> None:
    view = [
        user("go"),
        *step("r1", path="a.py", content="A" * 800),
        *step("r2", path="a.py", offset=5),
    ]
    assert plan_light(view, saving, at=NOW) is None


def test_a_later_write_makes_an_earlier_read_stale() -> None:
    view = [
        user("edit a.py"),
        *step("r1", path="a.py"),
        *step("e1", "edit", "old_string not found", error=True, path="a.py"),
        *step("r0", path="b.py", content="B" * 800),
    ]
    assert plan_light(view, saving, at=NOW) is None  # a failed edit changes nothing
    view += step("e2", "edit", "Edited a.py", path="a.py")
    edit = plan_light(view, saving, at=NOW)
    assert edit is not None and edit.call_ids == ("r1",)
    assert "[Stale: a.py was changed later by edit (call e2)" in edit.pointers[0]


def test_exact_duplicates_keep_the_newest() -> None:
    view = [
        user("go"),
        *step("g1", "grep_search", "match\n" * 100, pattern="x"),
        *step("g2", "grep_search", "match\n" * 100, pattern="x"),
        *step("s1", "run_shell_command", "match\n" * 100, command="grep x"),  # another tool
    ]
    edit = plan_light(view, saving, at=NOW)
    assert edit is not None and edit.call_ids == ("g1",)
    assert edit.pointers == ("[Same output as the later grep_search call g2; omitted here]",)


def test_errors_notes_and_tiny_results_are_never_superseded() -> None:
    view = [
        user("go"),
        *step("e1", "run_shell_command", "boom " * 100, error=True, command="x"),
        *step("e2", "run_shell_command", "boom " * 100, error=True, command="x"),
        *step("n1", "note", "noted 'k'", key="k", text="v"),
        *step("n2", "note", "noted 'k'", key="k", text="v"),
        *step("t1", "glob", "a.py", pattern="*"),
        *step("t2", "glob", "a.py", pattern="*"),
    ]
    assert plan_light(view, saving, at=NOW) is None


def test_the_light_step_is_reversible_and_idempotent() -> None:
    view = [user("go"), *step("r1", path="a.py"), *step("r2", path="a.py")]
    edit = plan_light(view, saving, at=NOW)
    assert edit is not None
    assert plan_light(build_view(view, [edit]), saving, at=NOW) is None  # nothing more to do
    assert build_view(view, [edit, Restore((edit.id,))]) == view


def test_a_later_read_that_points_back_does_not_supersede_the_copy_it_points_to() -> None:
    pointer = unchanged_read_pointer("r1", "a.py", None)
    again = step("r2", "read_file", pointer, path="a.py")
    view = [user("go"), *step("r1", path="a.py"), user("again"), *again]
    assert plan_light(view, saving, at=NOW) is None
