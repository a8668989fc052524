"""Which replies are rolled back ("this step never happened") and the note the retry carries.

A reply is rolled back when it

- writes a tool call as text instead of making a structured call: a ``<tool_call>``,
  ``<function=…>``, ``<function_calls>``/``<invoke …>`` or ``<mcp…>``/``<use_mcp_tool>`` tag
  at the start of a line outside code, or the whole answer being a bare
  ``{"name": …, "arguments": …}`` object (only when tools were offered);
- opens with a refusal ("As an AI…", "I cannot help…", "I can't help with…"), or the
  provider stopped it as a refusal;
- is empty (no text and no tool call);
- calls a tool that does not exist (or that ``tools.exclude`` keeps from the model).

A reply with structured calls to known tools is never rolled back for its text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from lull.model.messages import Part, Text, ToolCall
from lull.model.provider import StopReason
from lull.model.rollbacks import RollbackReason

_FENCED = re.compile(r"```.*?(```|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
_CALL_TAG = re.compile(
    r"^[ \t]*<(?P<tag>tool_call\b|tool_use\b|function_calls\b|function=[^>\s]*|invoke\s+name="
    r"|use_mcp_tool\b|mcp[:_][\w:-]*)",
    re.M | re.I,
)
_JSON_FENCE = re.compile(r"^```(?:json)?\s*(?P<body>.*?)\s*```$", re.S | re.I)
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_REFUSAL = re.compile(
    r"^(?:as an ai\b|as a language model\b|as an ai language model\b"
    r"|i(?: cannot| can't| can not| am unable to| am not able to|'m unable to|'m not able to)"
    r" (?:help|assist|comply|fulfil|fulfill|provide|do that|do this|complete|support|engage"
    r"|answer|create|write|generate|carry out|perform|share|continue)\b"
    r"|i'm sorry,? but i (?:cannot|can't|won't)\b|i won't (?:help|assist|do that)\b)",
    re.I,
)
SNIPPET_CHARS = 60


@dataclass(frozen=True, slots=True)
class Rollback:
    """Why a reply is rolled back: the reason, one line naming what was found, and the
    one-line corrective note the retry carries after the last message."""

    reason: RollbackReason
    detail: str
    note: str


def judge_reply(
    parts: Sequence[Part], stop_reason: StopReason, offered: Collection[str]
) -> Rollback | None:
    """The rollback a finished reply calls for, or None to keep it; ``offered`` are the
    names of the tools the request offered."""
    calls = [p for p in parts if isinstance(p, ToolCall)]
    unknown = [c.name for c in calls if c.name not in offered]
    if unknown:
        return _unknown_tool(unknown[0], offered)
    if calls:
        return None
    text = "".join(p.text for p in parts if isinstance(p, Text))
    if stop_reason == "refusal":
        return _refusal(text or "the provider stopped the answer as a refusal")
    if not text.strip():
        return Rollback(
            "empty",
            "no text and no tool call",
            "Your previous reply was empty and was discarded. Answer the user, or call a tool "
            "through the tool-calling interface.",
        )
    if offered and (found := written_call(text)) is not None:
        return Rollback(
            "tool_call_as_text",
            found,
            "Your previous reply wrote a tool call as text, so nothing ran, and it was "
            "discarded. Call tools only through the structured tool-calling interface, never "
            "as tags or JSON in your answer.",
        )
    if opens_with_refusal(text):
        return _refusal(text)
    return None


def written_call(text: str) -> str | None:
    """What in ``text`` is a tool call written as text (a tag or a bare JSON call), or None."""
    prose = _INLINE.sub("", _FENCED.sub("", text))
    tag = _CALL_TAG.search(prose)
    if tag is not None:
        return f"<{tag.group('tag').strip()}…> tag"
    name = _json_call_name(text.strip())
    return f"a bare JSON call of {name!r}" if name is not None else None


def opens_with_refusal(text: str) -> bool:
    """Whether ``text`` starts with a refusal ("As an AI…", "I cannot help…")."""
    return _REFUSAL.match(text.lstrip().replace("\u2019", "'")) is not None


def _json_call_name(text: str) -> str | None:
    """The tool name when the whole ``text`` is a JSON tool call (or a list of them)."""
    fenced = _JSON_FENCE.match(text)
    if fenced is not None:
        text = fenced.group("body")
    if not text.startswith(("{", "[")):
        return None
    try:
        value: Any = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    if not any(isinstance(value.get(key), dict | str) for key in _ARGUMENT_KEYS):
        return None
    return str(value["name"])


def _unknown_tool(name: str, offered: Collection[str]) -> Rollback:
    available = ", ".join(offered) or "none"
    return Rollback(
        "unknown_tool",
        f"no tool named {name!r}",
        f"Your previous reply called {name!r}, which is not one of your tools, and was "
        f"discarded. The tools are: {available}.",
    )


def _refusal(text: str) -> Rollback:
    return Rollback(
        "refusal",
        snippet(text),
        "Your previous reply refused and was discarded. This is a software task in the "
        "user's own workspace: carry it out, or say exactly what information is missing.",
    )


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """The start of ``text`` on one line, quoted, for details and log lines."""
    line = " ".join(text.split())
    return repr(line if len(line) <= limit else line[: limit - 1] + "…")
