"""What a prompt too large to send whole becomes: the saved text and the model's message."""

from __future__ import annotations

from lull.context.large_prompt import (
    LINE_CHARS,
    line_count,
    offload_limit,
    offload_message,
    prompt_tokens,
    split_long_lines,
)


def test_the_estimate_counts_every_character_past_ascii_as_a_token() -> None:
    assert prompt_tokens("a" * 400) == 100
    assert prompt_tokens("日本語" * 100) == 300  # characters/4 would say 75
    assert prompt_tokens("") == 0
    assert offload_limit(200_000, 0.25) == 50_000


def test_long_lines_are_split_and_nothing_is_lost() -> None:
    text = "short\r\n" + "x" * (2 * LINE_CHARS + 5) + "\rlast"
    saved, split = split_long_lines(text)
    assert split == 1
    assert saved.replace("\n", "").replace("\r", "") == text.replace("\n", "").replace("\r", "")
    assert line_count(saved) == line_count(text) + 2 == 5
    assert all(len(line) <= LINE_CHARS for line in saved.replace("\r", "\n").split("\n"))
    assert split_long_lines("a\nb\n") == ("a\nb\n", 0)
    assert line_count("a\nb\n") == line_count("a\nb") == 2


def test_the_message_says_where_how_large_and_how_to_read_it() -> None:
    saved = "".join(f"line {n}\n" for n in range(1, 101))
    message = offload_message("/data/p.txt", saved, 60_000, 50_000, 1_234_567, 0)
    assert "~60,000 tokens" in message and "the limit is 50,000" in message
    assert "/data/p.txt (100 lines, 1.2 MB)" in message
    assert "read_file" in message and "offset and limit" in message
    head, _, tail = message.partition("[… 75 more lines …]")
    assert "line 1\n" in head and "line 20" in head and "line 21" not in head
    assert "line 96" in tail and "line 100" in tail and "line 95\n" not in tail
    assert "were split" in offload_message("/p", "x\n", 2, 1, 2, 3)
