"""The output formats of one-shot mode (``lull -p --output-format``)."""

from __future__ import annotations

from typing import Literal, get_args

OutputFormat = Literal["text", "json", "stream-json"]
"""text: the answer; json: one result object; stream-json: one event per line."""
OUTPUT_FORMATS: tuple[OutputFormat, ...] = get_args(OutputFormat)
