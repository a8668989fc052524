"""The chars/4 token estimate used for idle cleanup accounting."""

from __future__ import annotations

from datetime import date

from lull.context.estimate import (
    IMAGE_TOKENS,
    estimate_message_tokens,
    estimate_messages_tokens,
    estimate_part_tokens,
    estimate_tokens,
)
from lull.model.messages import Image, Message, Text, Thinking, ToolCall, ToolResult


def test_estimate_rounds_up_quarter_characters() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 400)] == [0, 1, 1, 2, 100]


def test_thinking_counts_text_and_redacted_counts_its_payload() -> None:
    assert estimate_part_tokens(Thinking("t" * 40, signature="s" * 400)) == 10
    assert estimate_part_tokens(Thinking("", signature="p" * 40, redacted=True)) == 10


def test_tool_parts_count_id_name_and_payload() -> None:
    result = ToolResult("abcd", "read_file", "x" * 400)
    assert estimate_part_tokens(result) == 1 + 3 + 100
    # Arguments that are not JSON-native (a date) still estimate instead of failing.
    tool_call = ToolCall("abcd", "glob", {"since": date(2026, 1, 1)})
    assert estimate_part_tokens(tool_call) > 2


def test_message_and_list_totals_sum_their_parts() -> None:
    message = Message("user", (Text("x" * 8), Image("image/png", "AAAA")))
    assert estimate_message_tokens(message) == 2 + IMAGE_TOKENS
    assert estimate_messages_tokens([message, message]) == 2 * (2 + IMAGE_TOKENS)
