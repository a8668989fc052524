"""Per-tool figures from a session's transcript, edits and call times."""

from __future__ import annotations

from lull.context.repeats import duplicate_call_pointer, unchanged_read_pointer
from lull.context.tool_stats import ToolStats, tool_stats
from lull.model.edits import ClearToolResults, Rewind, Summary, Supersede
from lull.model.messages import Message
from tests.unit.context.builders import assistant, call, result, results, tool_step, user


def stats_by_name(
    transcript: list[Message], edits: list, seconds: dict[str, float] | None = None
) -> dict[str, ToolStats]:
    return {s.name: s for s in tool_stats(transcript, edits, seconds or {})}


def test_calls_failures_time_and_output_per_tool() -> None:
    transcript = [
        user("go"),
        *tool_step("r1"),
        *tool_step("r2", error=True, content="no such file"),
        *tool_step("g1", "grep_search", content="y" * 80),
    ]
    seconds = {"r1": 0.25, "r2": 0.5, "g1": 1.0}
    found = tool_stats(transcript, [], seconds)
    assert [s.name for s in found] == ["read_file", "grep_search"]  # most called first
    read, grep = found
    assert (read.calls, read.failures, read.seconds) == (2, 1, 0.75)
    assert read.output_tokens == 100 + 3  # 400 characters, then "no such file"
    assert (grep.calls, grep.failures, grep.output_tokens) == (1, 0, 20)
    assert grep.to_dict() == {
        "calls": 1,
        "failures": 0,
        "seconds": 1.0,
        "output_tokens": 20,
        "cleared": 0,
        "recalled": 0,
        "pointers": 0,
    }


def test_cleared_counts_what_the_model_does_not_see_in_full_now() -> None:
    transcript = [
        user("go", msg_id="u1"),
        *tool_step("r1"),
        *tool_step("r2"),
        user("more", msg_id="u2"),
        *tool_step("r3"),
        *tool_step("r4"),
        *tool_step("s1", "run_shell_command"),
    ]
    summary = Summary(through_id=transcript[2].id, text="read r1")  # r1 summarised away
    edits = [
        summary,
        ClearToolResults(("r2",)),
        Supersede(("r3",), ("[Superseded: …]",)),
        ClearToolResults(("s1",)),
    ]
    found = stats_by_name(transcript, edits)
    assert found["read_file"].cleared == 3 and found["run_shell_command"].cleared == 1


def test_recalls_count_for_the_tool_whose_output_came_back() -> None:
    transcript = [
        user("go"),
        *tool_step("r1"),
        assistant(call("c1", "recall", id="r1"), call("c2", "recall", id="nope")),
        results(result("c1", "recall"), result("c2", "recall", "no such id", error=True)),
        assistant(call("c3", "recall", id=" r1 ")),
        results(result("c3", "recall")),
    ]
    found = stats_by_name(transcript, [ClearToolResults(("r1",))])
    assert found["read_file"].recalled == 2 and found["read_file"].cleared == 1
    assert (found["recall"].calls, found["recall"].failures, found["recall"].recalled) == (3, 1, 0)


def test_pointers_count_repeats_and_duplicates() -> None:
    transcript = [
        user("go"),
        *tool_step("r1"),
        *tool_step("r2", content=unchanged_read_pointer("r1", "a.py", None)),
        *tool_step("r3", content=duplicate_call_pointer("r2", 2)),
    ]
    assert stats_by_name(transcript, [])["read_file"].pointers == 2


def test_a_command_the_user_ran_is_not_the_models_call() -> None:
    by_user = Message(
        "assistant", (call("u1", "run_shell_command", command="ls"),), origin="synthetic"
    )
    transcript = [user("!ls"), by_user, results(result("u1", "run_shell_command"))]
    assert tool_stats(transcript, [], {}) == []


def test_a_rewind_hides_its_calls() -> None:
    transcript = [user("go"), *tool_step("r1"), user("then", msg_id="u2"), *tool_step("r2")]
    rewind = Rewind(from_id="u2", through_id=transcript[-1].id)
    assert stats_by_name(transcript, [rewind])["read_file"].calls == 1
    assert tool_stats([user("hi")], [], {}) == []
