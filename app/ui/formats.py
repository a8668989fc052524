"""The output and input formats of one-shot mode (``lull -p --output-format``,
``--input-format``)."""

from __future__ import annotations

from typing import Literal, get_args

OutputFormat = Literal["text", "json", "stream-json"]
"""text: the answer; json: one result object; stream-json: one event per line."""
OUTPUT_FORMATS: tuple[OutputFormat, ...] = get_args(OutputFormat)

InputFormat = Literal["text", "stream-json"]
"""text: the prompt (and piped stdin); stream-json: user messages as JSON lines on stdin."""
INPUT_FORMATS: tuple[InputFormat, ...] = get_args(InputFormat)
