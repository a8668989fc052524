"""Streaming to scrollback: which text is settled, and what the live tail shows."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from lull.ui.line.stream import BlockSplitter, StreamView, tail_lines

ANSWER = (
    "# Plan\n\nFirst paragraph\nstill the first.\n\n- one\n- two\n\n  continued item\n\n"
    "```python\nx = 1\n\ny = 2\n```\nAfter the code.\n\nLast line"
)


def _split(text: str, size: int) -> list[str]:
    splitter = BlockSplitter()
    blocks: list[str] = []
    for start in range(0, len(text), size):
        blocks += splitter.feed(text[start : start + size])
    return [*blocks, splitter.finish()]


def test_markdown_settles_at_block_boundaries_and_whole_code_fences() -> None:
    assert _split(ANSWER, 5) == [
        "# Plan\n",
        "First paragraph\nstill the first.\n",
        "- one\n- two\n\n  continued item\n",  # an indented line continues the list
        "```python\nx = 1\n\ny = 2\n```\n",  # a blank line inside a fence does not split
        "After the code.\n\nLast line",  # the last line never ended: one final block
    ]


def test_a_block_stays_in_the_tail_until_the_next_one_starts() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("Hello world.\n\n") == []
    assert splitter.tail == "Hello world.\n\n"
    assert splitter.feed("Next") == []  # the next line is not complete yet
    assert splitter.feed(" one\n") == ["Hello world.\n"]
    assert splitter.tail == "Next one\n"


def test_plain_text_settles_line_by_line() -> None:
    splitter = BlockSplitter(markdown=False)
    assert splitter.feed("thinking about") == []
    assert splitter.feed(" it\nand more") == ["thinking about it\n"]
    assert splitter.finish() == "and more"


@given(st.text(alphabet="ab #-`\n ", max_size=200), st.integers(min_value=1, max_value=9))
def test_chunking_never_changes_the_blocks_or_loses_text(text: str, size: int) -> None:
    whole = _split(text, len(text) or 1)
    assert _split(text, size) == whole
    kept = "".join(whole)
    assert [line for line in kept.split("\n") if line.strip()] == [
        line for line in text.split("\n") if line.strip()
    ]


def test_the_tail_shows_only_the_last_lines() -> None:
    assert tail_lines("1\n2\n3\n4\n5\n6\n7\n8\n", 3) == "6\n7\n8"


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=60, force_terminal=terminal, color_system=None), out


def test_each_settled_block_is_printed_once_as_markdown() -> None:
    console, out = _console(terminal=False)
    view = StreamView(console)
    for start in range(0, len(ANSWER), 7):
        view.feed(ANSWER[start : start + 7])
    view.finish()
    text = out.getvalue()
    assert text.count("First paragraph") == 1 and text.count("Last line") == 1
    assert "# Plan" not in text and "```" not in text  # rendered, not echoed
    assert " • one" in text and "x = 1" in text


def test_on_a_terminal_the_unsettled_tail_is_visible_while_streaming() -> None:
    ticks = iter(range(100))
    console, out = _console(terminal=True)
    view = StreamView(console, clock=lambda: float(next(ticks)))
    view.feed("Half a sent")
    assert "Half a sent" in out.getvalue()  # shown live before its block settled
    view.feed("ence.")
    view.finish()
    assert out.getvalue().rstrip().endswith("Half a sentence.")
