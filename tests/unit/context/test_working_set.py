"""The working set: what a clearing keeps beyond the newest N because the work still uses it."""

from __future__ import annotations

from typing import Any

from lull.context.idle import IdlePolicy, plan_idle_cleanup
from lull.context.working_set import Kept, shell_written, working_set
from lull.model.edits import ClearToolResults
from lull.model.messages import Message, Text, ToolCall, ToolResult
from tests.unit.context.builders import NOW, ago, assistant, result, results, user

LINE = "    return self.format or getattr(schema.opts, self.SCHEMA_OPTS_VAR_NAME)"


def step(call_id: str, name: str, content: str, text: str = "", **arguments: Any) -> list[Message]:
    """An assistant message (optional text, one call) and its result."""
    parts: tuple[Any, ...] = (Text(text),) if text else ()
    parts += (ToolCall(call_id, name, arguments),)
    return [assistant(*parts), results(result(call_id, name, content))]


def filler(count: int, start: int = 0) -> list[Message]:
    """``count`` unrelated shell runs."""
    out: list[Message] = []
    for n in range(start, start + count):
        out += step(f"f{n}", "run_shell_command", f"output {n} " * 40, command=f"ls dir{n}")
    return out


def candidates(view: list[Message]) -> list[ToolResult]:
    return [p for m in view for p in m.parts if isinstance(p, ToolResult)]


def test_a_result_recent_text_quotes_is_kept() -> None:
    view = [
        user("fix the DateTime field"),
        *step("read", "read_file", f"class DateTime:\n{LINE}\n", path="src/fields.py"),
        *filler(6),
        *step(
            "grep", "grep_search", "x " * 100, f"The line `{LINE.strip()}` is wrong.", pattern="a"
        ),
    ]
    kept = working_set(view, candidates(view))
    assert Kept("read", "quoted") in kept
    assert all(k.call_id != "f0" for k in kept)


def test_a_quote_in_a_tool_calls_arguments_counts() -> None:
    command = "sed -i 's/getattr(schema.opts, self.SCHEMA_OPTS_VAR_NAME)/x/' src/fields.py"
    view = [
        *step("cat", "run_shell_command", f"{LINE}\n", command="cat src/fields.py"),
        *filler(3),
        *step("sed", "run_shell_command", "", command=command),
    ]
    kept = {k.call_id: k for k in working_set(view, candidates(view))}
    # quoted, and the latest read of a file a shell command writes
    assert kept["cat"].reason in ("quoted", "edited_file")


def test_the_latest_read_of_an_edited_file_is_kept() -> None:
    view = [
        *step("r1", "read_file", "old text " * 50, path="src/a.py"),
        *step("r2", "read_file", "newer text " * 50, path="src/a.py"),
        *step("rb", "read_file", "other " * 50, path="src/b.py"),
        *step("e1", "edit", "ok", path="src/a.py", old_string="x", new_string="y"),
        *filler(6),
    ]
    kept = working_set(view, candidates(view))
    assert Kept("r2", "edited_file", "src/a.py") in kept
    assert {k.call_id for k in kept}.isdisjoint({"r1", "rb"})
    assert "the latest read of src/a.py, which the session edits" in kept[0].describe()


def test_the_latest_run_of_a_repeated_command_is_kept() -> None:
    view = [
        *step("t1", "run_shell_command", "2 failed " * 30, command="pytest -q tests"),
        *filler(2),
        *step("t2", "run_shell_command", "1 failed " * 30, command="pytest  -q tests"),
        *filler(6, 2),
    ]
    kept = working_set(view, candidates(view))
    assert [k.call_id for k in kept] == ["t2"]
    assert kept[0].describe() == "t2: the latest run of a repeated command (pytest -q tests)"


def test_the_full_copy_of_a_file_the_work_keeps_reading_is_kept() -> None:
    pointer = "[Unchanged since call r1: src/a.py reads exactly as in that read_file result above]"
    view = [
        *step("r1", "read_file", "def a():\n    return 1\n" * 40, path="src/a.py"),
        *step("once", "read_file", "def b():\n    return 2\n" * 40, path="src/b.py"),
        *filler(2),
        *step("r2", "read_file", pointer, path="src/a.py"),
        *filler(6, 2),
    ]
    kept = working_set(view, candidates(view))
    # the copy the pointer leads to, not the pointer; a file read once is not kept
    assert [k.call_id for k in kept] == ["r1"]
    assert kept[0].describe() == (
        "r1: the latest read of src/a.py, which the session reads again and again"
    )


def test_shell_writes_are_found() -> None:
    assert shell_written("sed -i 's/a/b/' src/x.py") == {"src/x.py"}
    assert shell_written("sed -i -e 's/a/b/' ./src/x.py && echo hi > out.txt") == {
        "src/x.py",
        "out.txt",
    }
    assert shell_written("cat a.py | tee -a log.txt") == {"log.txt"}
    assert shell_written("grep -n foo src/x.py") == set()


def test_idle_cleanup_keeps_the_working_set_and_says_why() -> None:
    view = [
        user("work", "u1"),
        *step("r1", "read_file", "source " * 200, path="src/a.py"),
        *step("e1", "edit", "ok " * 10, path="src/a.py", old_string="x", new_string="y"),
        *filler(8),
        user("next", "u2"),
    ]
    policy = IdlePolicy(tool_results_threshold_minutes=5, thinking_threshold_minutes=-1)
    [edit] = plan_idle_cleanup(
        view, policy=policy, last_response_at=ago(10), now=NOW, thinking_rule="all"
    )
    assert isinstance(edit, ClearToolResults)
    assert "r1" not in edit.call_ids and "f0" in edit.call_ids
    assert edit.kept == 6 and edit.kept_for == (
        "r1: the latest read of src/a.py, which the session edits",
    )
    off = IdlePolicy(
        tool_results_threshold_minutes=5, thinking_threshold_minutes=-1, keep_working_set=False
    )
    [plain] = plan_idle_cleanup(
        view, policy=off, last_response_at=ago(10), now=NOW, thinking_rule="all"
    )
    assert isinstance(plain, ClearToolResults) and "r1" in plain.call_ids and not plain.kept_for
