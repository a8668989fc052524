"""Oversized tool results: truncated for the model, full text on disk, same bytes every time."""

from __future__ import annotations

from pathlib import Path

from lull.context.tokens import TokenCounter
from lull.context.truncate import Cut, ToolOutputLimiter, utf8_length
from lull.engine.fitting.outputs import FullTextStore, full_text_path
from lull.model.messages import CLEARED_TOOL_RESULT, Message, Text, ToolCall, ToolResult

LINES = "".join(f"line {i:05d}: some output of a long command\n" for i in range(4000))


def _view(content: str, call_id: str = "call_1") -> list[Message]:
    return [
        Message("user", (Text("run it"),), id="u1"),
        Message("assistant", (ToolCall(call_id, "run_shell_command", {"command": "x"}),), id="a1"),
        Message("user", (ToolResult(call_id, "run_shell_command", content),), id="r1"),
    ]


def _limiter(tmp_path: Path, max_tokens: int = 1000) -> ToolOutputLimiter:
    counter = TokenCounter("claude-sonnet-4-5")
    return ToolOutputLimiter(max_tokens, counter, FullTextStore(tmp_path / "out").save)


def test_an_oversized_result_is_cut_with_a_marker_naming_the_full_text(tmp_path: Path) -> None:
    limiter = _limiter(tmp_path)
    view = _view(LINES)
    limited = limiter.apply(view)
    content = limited[2].tool_results[0].content
    assert limiter.counter.text(content) <= 1000
    assert content.startswith("line 00000:")  # the head
    assert content.rstrip().endswith("line 03999: some output of a long command")  # the tail
    path = full_text_path(tmp_path / "out", "call_1")
    assert f"the full text is in {path}" in content
    assert "tokens of this tool result omitted for the model" in content
    assert path.read_text() == LINES
    # pairing and everything else untouched; the transcript message is not changed
    assert limited[2].tool_results[0].call_id == "call_1"
    assert limited[:2] == view[:2] and limited[0] is view[0]
    assert view[2].tool_results[0].content == LINES


def test_every_request_sends_the_same_bytes(tmp_path: Path) -> None:
    limiter = _limiter(tmp_path)
    view = _view(LINES)
    first = limiter.apply(view)
    again = limiter.apply(view)
    assert again[2] is first[2]
    other = _limiter(tmp_path)  # e.g. after a resume
    assert other.apply(_view(LINES))[2].tool_results[0].content == first[2].tool_results[0].content


def test_results_within_the_limit_and_cleared_ones_are_untouched(tmp_path: Path) -> None:
    limiter = _limiter(tmp_path, max_tokens=5000)
    small = _view("short output\n" * 50)
    assert limiter.apply(small)[2] is small[2]
    cleared = _view(CLEARED_TOOL_RESULT)
    assert limiter.apply(cleared)[2] is cleared[2]
    assert not (tmp_path / "out").exists()


def test_an_unsavable_full_text_is_said_in_the_marker(tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("a file where the directory should be")
    limiter = ToolOutputLimiter(500, TokenCounter("gpt-4o"), FullTextStore(blocker).save)
    content = limiter.apply(_view(LINES))[2].tool_results[0].content
    assert "the full text could not be saved" in content
    assert limiter.counter.text(content) <= 500


def test_a_single_huge_line_is_cut_too(tmp_path: Path) -> None:
    limiter = _limiter(tmp_path, max_tokens=300)
    content = limiter.apply(_view("z" * 200_000))[2].tool_results[0].content
    assert limiter.counter.text(content) <= 300


def test_a_known_cut_makes_the_same_text_without_counting(tmp_path: Path) -> None:
    first = _limiter(tmp_path)
    sent = first.apply(_view(LINES))[2]
    cut = first.cuts["call_1"]
    assert Cut.from_list(cut.as_list()) == cut
    resumed = _limiter(tmp_path)
    resumed.cuts.update({"call_1": Cut.from_list(cut.as_list())})
    assert resumed.apply(_view(LINES))[2].parts == sent.parts
    assert resumed.counter._tokenizer is None  # nothing was counted


def test_a_result_within_the_limit_is_remembered_as_such(tmp_path: Path) -> None:
    limiter = _limiter(tmp_path, max_tokens=10_000)
    text = LINES[:20_000]  # more bytes than the limit, fewer tokens
    view = _view(text)
    assert limiter.apply(view)[2] is view[2]
    assert limiter.cuts["call_1"].as_list() == [limiter.counter.text(text)]


def test_utf8_length_is_the_encoded_size() -> None:
    assert utf8_length("abc") == 3
    assert utf8_length("é€😀") == 2 + 3 + 4
    assert utf8_length("\udcff") == 3  # a lone surrogate (a stray byte) still has a size
