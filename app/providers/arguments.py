"""Tool-call arguments: streamed JSON text <-> the mapping a ToolCall holds.

Policy for arguments that are not a JSON object (a model glitch or a cut
fragment): the ToolCall gets ``{"_raw": "<the text as received>"}``. Nothing is
lost, the tool layer can report "invalid JSON arguments" to the model as an
error result (``raw_arguments`` tells it), and sending the call back
reproduces the model's exact bytes instead of an invented ``{}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lull.model.messages import RAW_ARGUMENTS_KEY

__all__ = ["RAW_ARGUMENTS_KEY", "arguments_json", "parse_arguments", "raw_arguments"]


def parse_arguments(text: str) -> dict[str, Any]:
    """The arguments mapping for streamed JSON ``text`` ("" or blanks mean no arguments)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {RAW_ARGUMENTS_KEY: text}
    if not isinstance(value, dict):
        return {RAW_ARGUMENTS_KEY: text}
    return value


def raw_arguments(arguments: Mapping[str, Any]) -> str | None:
    """The unparsable text when ``arguments`` came from invalid JSON, else None."""
    if len(arguments) == 1 and isinstance(arguments.get(RAW_ARGUMENTS_KEY), str):
        return str(arguments[RAW_ARGUMENTS_KEY])
    return None


def arguments_json(arguments: Mapping[str, Any]) -> str:
    """The JSON text to send back for ``arguments`` (the original text if it was invalid)."""
    raw = raw_arguments(arguments)
    if raw is not None:
        return raw
    return json.dumps(dict(arguments), sort_keys=False, ensure_ascii=False)
