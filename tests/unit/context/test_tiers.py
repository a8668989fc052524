"""Priority tiers: what the user typed, open errors and notes are critical; the recent tail,
decisions and current reads of files being worked on are important; the rest is standard."""

from __future__ import annotations

from lull.context.repeats import unchanged_read_pointer
from lull.context.tiers import classify, current_reads, recent_start, target, unresolved_errors
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.notes import user_note_text
from tests.unit.context.builders import assistant, results, user


def step(
    call_id: str, name: str, content: str = "x" * 400, *, error: bool = False, **args: object
) -> list[Message]:
    """One call and its result."""
    return [
        assistant(ToolCall(call_id, name, args)),
        results(ToolResult(call_id, name, content, is_error=error)),
    ]


def test_what_the_user_typed_is_critical_wherever_it_is() -> None:
    view = [user("always use tabs"), assistant(Text("ok")), *[user(f"q{n}") for n in range(4)]]
    tiers = classify(view)
    assert tiers.messages[0] == "critical" and tiers.messages[1] == "important"  # a decision
    assert all(tier == "critical" for tier in tiers.messages[2:])


def test_an_error_is_critical_until_a_success_on_the_same_target() -> None:
    view = [
        user("fix it"),
        *step("e1", "run_shell_command", "FAILED test_a", error=True, command="make  test"),
        *step("e2", "edit", "old_string not found", error=True, path="./src/a.py"),
        *step("ok1", "run_shell_command", "passed", command="make test"),
        *step("r1", "read_file", path="src/a.py"),  # a read does not fix a failed edit
    ]
    assert unresolved_errors(view) == {"e2"}
    tiers = classify(view)
    assert tiers.result("e2") == "critical" and tiers.result("e1") != "critical"
    assert target(ToolCall("x", "edit", {"path": "./src/a.py"})) == "write:src/a.py"
    assert target(ToolCall("y", "write_file", {"path": "src/a.py"})) == "write:src/a.py"
    view += step("w1", "write_file", "written", path="src/a.py")
    assert unresolved_errors(view) == set()


def test_notes_are_critical() -> None:
    view = [
        user("hi"),
        *step("n1", "note", "noted 'tabs'", key="tabs", text="the user wants tabs"),
        Message("user", (Text(user_note_text("tests", "make check")),), origin="synthetic"),
        *[m for n in range(3) for m in (user(f"q{n}"), assistant(Text("a")))],
    ]
    tiers = classify(view)
    assert tiers.result("n1") == "critical"
    assert tiers.messages[3] == "critical"  # the note the user added


def test_the_latest_read_of_a_file_being_worked_on_is_important() -> None:
    view = [
        user("refactor a.py"),
        *step("r1", "read_file", path="a.py"),
        *step("w1", "edit", "ok", path="a.py"),
        *step("r2", "read_file", path="a.py"),  # current: after the last edit
        *step("r3", "read_file", path="b.py"),  # never written: not being worked on
        *[m for n in range(3) for m in (user(f"q{n}"), assistant(Text("done")))],
    ]
    assert current_reads(view) == {"r2"}
    tiers = classify(view)
    assert tiers.result("r2") == "important"
    assert tiers.result("r1") == "standard" and tiers.result("r3") == "standard"


def test_a_repeated_read_that_points_back_leaves_the_read_it_points_to_current() -> None:
    view = [
        user("refactor a.py"),
        *step("w1", "edit", "ok", path="a.py"),
        *step("r1", "read_file", path="a.py"),
        *step("r2", "read_file", unchanged_read_pointer("r1", "a.py", None), path="a.py"),
    ]
    assert current_reads(view) == {"r1"}


def test_the_recent_tail_is_important() -> None:
    view = [
        user("q1"),
        *step("r1", "grep_search", pattern="x"),
        user("q2"),
        *step("r2", "glob", pattern="*"),
    ]
    view += [user("q3"), *step("r3", "glob", pattern="*.py")]
    assert recent_start(view) == 3
    tiers = classify(view)
    assert tiers.result("r1") == "standard"
    assert tiers.result("r2") == "important" and tiers.result("r3") == "important"
    assert tiers.messages[1] == "standard" and tiers.messages[4] == "important"
