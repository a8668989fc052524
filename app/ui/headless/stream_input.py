"""User messages as JSON lines on stdin (``lull -p --input-format stream-json``).

Claude Code's streaming input: one message a line,
``{"type": "user", "message": {"role": "user", "content": "text" | [blocks]}}``, where a block
is ``{"type": "text", "text": ...}`` or ``{"type": "image", "source": {"type": "base64",
"media_type": "image/png", "data": ...}}``. Other keys (``session_id``,
``parent_tool_use_id``) are read past. A blank line is skipped; a line that is not such a
message is an :class:`InputLineError` naming its line number and what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from lull.model.messages import Image


class InputLineError(ValueError):
    """One stdin line is not a user message; the message names the line and the problem."""

    def __init__(self, number: int, problem: str) -> None:
        super().__init__(f"stdin line {number}: {problem}")
        self.number = number


@dataclass(frozen=True)
class UserInput:
    """One user message read from stdin: its text and images, and its line number."""

    text: str
    images: tuple[Image, ...] = ()
    line: int = 0


def parse_line(text: str, number: int) -> UserInput | None:
    """The user message on line ``number`` (None for a blank line)."""
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputLineError(number, f"not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(data, dict):
        raise InputLineError(number, f"expected a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    if kind != "user":
        raise InputLineError(
            number, f'type {kind!r} is not read; expected {{"type": "user", "message": {{...}}}}'
        )
    message = data.get("message")
    if not isinstance(message, dict):
        raise InputLineError(number, 'no "message" object')
    role = message.get("role", "user")
    if role != "user":
        raise InputLineError(number, f'message role {role!r}; only "user" messages are read')
    content = message.get("content")
    images: list[Image] = []
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts, images = _blocks(content, number)
    else:
        raise InputLineError(number, 'message "content" must be a string or a list of blocks')
    text_part = "\n\n".join(part for part in parts if part)
    if not text_part.strip() and not images:
        raise InputLineError(number, "the message is empty")
    return UserInput(text_part, tuple(images), number)


def _blocks(content: list[Any], number: int) -> tuple[list[str], list[Image]]:
    parts: list[str] = []
    images: list[Image] = []
    for index, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif kind == "image":
            images.append(_image(block, number, index))
        else:
            raise InputLineError(
                number, f"content block {index}: expected a text or an image block, got {block!r}"
            )
    return parts, images


def _image(block: dict[str, Any], number: int, index: int) -> Image:
    source = block.get("source")
    if (
        not isinstance(source, dict)
        or source.get("type") != "base64"
        or not isinstance(source.get("media_type"), str)
        or not isinstance(source.get("data"), str)
    ):
        raise InputLineError(
            number,
            f'content block {index}: an image needs "source": {{"type": "base64", '
            '"media_type": ..., "data": ...}}',
        )
    return Image(source["media_type"], source["data"])


def read_messages(stream: TextIO) -> Iterator[UserInput | InputLineError]:
    """Each user message of ``stream`` in order, or the error of a bad line (the reader
    goes on after it); ends at end of file."""
    for number, line in enumerate(stream, start=1):
        try:
            message = parse_line(line, number)
        except InputLineError as error:
            yield error
            continue
        if message is not None:
            yield message
