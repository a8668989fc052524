"""The pointer rules for repeated results: what an earlier result must show for a new output
to be answered by a pointer to it."""

from __future__ import annotations

from lull.context.repeats import (
    duplicate_call_pointer,
    is_pointer,
    query_pointer,
    read_body,
    read_pointer,
    same_query_pointer,
    unchanged_read_pointer,
)
from lull.model.messages import ToolResult, cleared_result_text


def numbered(first: int, last: int, total: int | None = None) -> str:
    """A read_file output of lines ``first``-``last`` (with the footer when ``total`` is more)."""
    body = "".join(
        f"{n:6}\tline {n} of the file, long enough to matter\n" for n in range(first, last + 1)
    )
    if total is not None and last < total:
        body += (
            f"\n[showing lines {first}-{last} of {total} (limit of {last - first + 1} lines); "
            f"call read_file with offset={last + 1} to read more]"
        )
    return body


def read(call_id: str, content: str, *, error: bool = False) -> ToolResult:
    return ToolResult(call_id, "read_file", content, error)


def test_the_same_output_points_to_the_newest_earlier_copy() -> None:
    content = numbered(1, 40)
    pointer = read_pointer(content, "a.py", (1, 40), [read("r2", content), read("r1", content)])
    assert pointer == unchanged_read_pointer("r2", "a.py", None)


def test_a_range_inside_an_earlier_output_keeps_its_footer() -> None:
    content = numbered(11, 30, total=40)
    pointer = read_pointer(content, "a.py", (11, 30), [read("r1", numbered(1, 40))])
    assert pointer is not None
    assert pointer.startswith(unchanged_read_pointer("r1", "a.py", (11, 30)))
    assert pointer.endswith("call read_file with offset=31 to read more]")


def test_lines_with_other_numbers_or_another_text_are_no_repeat() -> None:
    shifted = numbered(1, 40).replace("line 12 of", "line twelve of")
    assert read_pointer(numbered(11, 30), "a.py", (11, 30), [read("r1", shifted)]) is None
    assert read_pointer(numbered(1, 60), "a.py", (1, 60), [read("r1", numbered(1, 40))]) is None


def test_a_match_must_start_at_a_line() -> None:
    inner = "     5\ta line of text\n" * 60
    on_its_own = "     1\tsome text\n" + inner
    assert read_pointer(inner, "a.py", (5, 5), [read("r1", on_its_own)]) is not None
    glued = "     1\tsome text" + inner  # the first of the lines follows text on its line
    assert read_pointer(inner, "a.py", (5, 5), [read("r1", glued)]) is None


def test_cleared_failed_or_pointer_results_are_never_pointed_to() -> None:
    content = numbered(1, 40)
    unusable = [
        read("r1", cleared_result_text("r1")),
        read("r2", content, error=True),
        read("r3", unchanged_read_pointer("r0", "a.py", None)),
        ToolResult("r4", "read_file", content, cleared=True),
    ]
    assert read_pointer(content, "a.py", (1, 40), unusable) is None


def test_a_small_output_is_sent_as_it_is() -> None:
    content = numbered(1, 2)
    assert read_pointer(content, "a.py", (1, 2), [read("r1", content)]) is None
    assert read_body("(a.py is empty)") == ""


def test_a_query_points_only_to_exactly_its_output() -> None:
    output = "Found 30 matches\n" + "src/module.py:1: needle\n" * 30
    earlier = [ToolResult("g1", "grep_search", output)]
    assert query_pointer(output, "grep_search", earlier) == same_query_pointer("g1", "grep_search")
    assert query_pointer(output + "new.py:1: needle\n", "grep_search", earlier) is None


def test_pointers_are_recognised() -> None:
    assert is_pointer(unchanged_read_pointer("r1", "a.py", (1, 2)))
    assert is_pointer(same_query_pointer("g1", "glob"))
    assert is_pointer(duplicate_call_pointer("r1", 2))
    assert not is_pointer(numbered(1, 3))
