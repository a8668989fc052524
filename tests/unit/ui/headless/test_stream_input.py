"""User messages read as JSON lines from stdin."""

from __future__ import annotations

import io

import pytest

from lull.model.messages import Image
from lull.ui.headless.stream_input import InputLineError, UserInput, parse_line, read_messages


def test_a_string_or_blocks_make_one_message() -> None:
    plain = parse_line('{"type": "user", "message": {"role": "user", "content": "hi"}}', 3)
    assert plain == UserInput("hi", (), 3)
    blocks = (
        '{"type": "user", "session_id": "x", "message": {"content": [{"type": "text", "text": "a"},'
        ' {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QQ"}},'
        ' {"type": "text", "text": "b"}]}}'
    )
    assert parse_line(blocks, 1) == UserInput("a\n\nb", (Image("image/png", "QQ"),), 1)
    assert parse_line("   \n", 2) is None


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("{", "not JSON"),
        ('"hi"', "expected a JSON object, got str"),
        ('{"type": "control_request"}', "type 'control_request' is not read"),
        ('{"type": "user", "message": {"role": "assistant", "content": "x"}}', "role 'assistant'"),
        ('{"type": "user", "message": {"content": ""}}', "the message is empty"),
        ('{"type": "user", "message": {"content": [{"type": "video"}]}}', "content block 0"),
        ('{"type": "user", "message": {"content": [{"type": "image"}]}}', "an image needs"),
    ],
)
def test_a_bad_line_names_its_number_and_problem(line: str, says: str) -> None:
    with pytest.raises(InputLineError) as caught:
        parse_line(line, 7)
    assert str(caught.value).startswith("stdin line 7: ") and says in str(caught.value)


def test_reading_goes_on_after_a_bad_line() -> None:
    stdin = io.StringIO('oops\n{"type": "user", "message": {"content": "after"}}\n')
    first, second = read_messages(stdin)
    assert isinstance(first, InputLineError) and first.number == 1
    assert second == UserInput("after", (), 2)
