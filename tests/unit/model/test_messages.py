"""Messages survive the session file: every part round-trips, any text included."""

from __future__ import annotations

import json

import pytest

from lull.model.messages import (
    Image,
    Message,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    message_from_dict,
    message_to_dict,
    unanswered_calls,
)

PARTS = (
    Text("plain \udcff lone surrogate and \u00e9"),
    Thinking("why", "sig"),
    Thinking("", "opaque", redacted=True),
    ToolCall("c1", "read_file", {"path": "a\udcfe.py"}),
    ToolResult("c1", "read_file", "content", is_error=True, cleared=True),
    Image("image/png", "aGk="),
)


@pytest.mark.parametrize("part", PARTS, ids=lambda p: type(p).__name__)
def test_every_part_round_trips_through_json(part: object) -> None:
    message = Message("assistant", (part,), provider="anthropic")  # type: ignore[arg-type]
    text = json.dumps(message_to_dict(message), ensure_ascii=False)
    assert message_from_dict(json.loads(text)) == message


def test_a_bad_role_or_part_is_refused() -> None:
    good = message_to_dict(Message("user", (Text("hi"),)))
    with pytest.raises(ValueError, match="unknown role"):
        message_from_dict({**good, "role": "system"})
    with pytest.raises(ValueError, match="unknown part type"):
        message_from_dict({**good, "parts": [{"type": "video"}]})


def test_unanswered_calls_are_those_of_the_last_assistant_message() -> None:
    calls = (ToolCall("a", "glob", {}), ToolCall("b", "glob", {}))
    history = [
        Message("assistant", calls),
        Message("user", (ToolResult("a", "glob", "x"),)),
    ]
    assert unanswered_calls(history) == [calls[1]]
