"""Priority tiers: how much each message (and each tool result) of a view matters.

* **critical** — never summarised away, never cleared: what the user typed, error results
  not yet followed by a success on the same target, session notes (and the summary that
  restates them);
* **important** — summarised and cleared last: the recent tail (the last
  :data:`RECENT_TURNS` user turns), the model's decisions (assistant text), the latest read
  of each file still being worked on (written or edited in the session, and not changed
  since that read);
* **standard** — everything else: cleared and summarised first.

Pure functions over a view; targets come from the tool calls' arguments.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lull.context.notes import is_note_message
from lull.context.repeats import is_pointer
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.notes import NOTE_TOOL

Tier = Literal["critical", "important", "standard"]
TIER_ORDER: dict[Tier, int] = {"standard": 0, "important": 1, "critical": 2}
RECENT_TURNS = 2
READ_TOOLS = frozenset({"read_file"})
WRITE_TOOLS = frozenset({"write_file", "edit"})
_FAMILY = {"read_file": "read", "write_file": "write", "edit": "write"}


@dataclass(frozen=True)
class Tiers:
    """The tier of every message of a view (same order) and of every tool result by call id."""

    messages: tuple[Tier, ...]
    results: Mapping[str, Tier]

    def result(self, call_id: str) -> Tier:
        """The tier of one tool result (standard when unknown)."""
        return self.results.get(call_id, "standard")


def file_path(call: ToolCall) -> str | None:
    """The normalised file a read, write or edit call is about (None for other calls)."""
    if call.name not in READ_TOOLS | WRITE_TOOLS:
        return None
    path = call.arguments.get("path")
    if not isinstance(path, str) or not path.strip():
        return None
    return posixpath.normpath(path.strip())


def target(call: ToolCall) -> str:
    """What a call acts on, for "a later success on the same target": the file for reads
    (``read:``) and for writes and edits (``write:``), the command for shell calls, else the
    tool and its arguments."""
    path = file_path(call)
    if path is not None:
        return f"{_FAMILY[call.name]}:{path}"
    command = call.arguments.get("command")
    if call.name == "run_shell_command" and isinstance(command, str):
        return f"shell:{' '.join(command.split())}"
    return f"{call.name}:{_canonical(call.arguments)}"


def calls_by_id(view: Sequence[Message]) -> dict[str, ToolCall]:
    """Every tool call of ``view`` by id."""
    return {c.id: c for m in view for c in m.tool_calls}


def unresolved_errors(view: Sequence[Message]) -> set[str]:
    """Call ids of error results not followed by a successful result on the same target."""
    calls = calls_by_id(view)
    open_errors: dict[str, list[str]] = {}
    for message in view:
        for result in message.tool_results:
            call = calls.get(result.call_id)
            key = target(call) if call is not None else f"?:{result.call_id}"
            if result.is_error:
                open_errors.setdefault(key, []).append(result.call_id)
            else:
                open_errors.pop(key, None)
    return {call_id for ids in open_errors.values() for call_id in ids}


def note_results(view: Sequence[Message]) -> set[str]:
    """Call ids of ``note`` tool calls (their results are critical)."""
    return {c.id for m in view for c in m.tool_calls if c.name == NOTE_TOOL}


def current_reads(view: Sequence[Message]) -> set[str]:
    """Call ids of the latest successful read of each file that is being worked on (written
    or edited successfully somewhere in ``view``) and not changed since that read."""
    calls = calls_by_id(view)
    latest_read: dict[str, str] = {}
    written: set[str] = set()
    for message in view:
        for result in message.tool_results:
            call = calls.get(result.call_id)
            path = file_path(call) if call is not None else None
            if call is None or path is None or result.is_error or is_pointer(result.content):
                continue  # a repeated read's pointer leaves the read it points to current
            if call.name in WRITE_TOOLS:
                written.add(path)
                latest_read.pop(path, None)  # the read before it is stale now
            else:
                latest_read[path] = result.call_id
    return {call_id for path, call_id in latest_read.items() if path in written}


def recent_start(view: Sequence[Message], turns: int = RECENT_TURNS) -> int:
    """Index where the recent tail begins: the ``turns``-th last user prompt (0 if fewer)."""
    seen = 0
    for index in range(len(view) - 1, -1, -1):
        if view[index].is_user_prompt and view[index].origin == "user":
            seen += 1
            if seen == turns:
                return index
    return 0


def is_typed_by_user(message: Message) -> bool:
    """A message the user typed (or a note the user added), or a summary that restates
    such messages."""
    if message.origin in ("user", "summary") and message.is_user_prompt:
        return True
    return is_note_message(message)


def classify(view: Sequence[Message]) -> Tiers:
    """The tier of every message and tool result of ``view``."""
    critical_results = unresolved_errors(view) | note_results(view)
    important_results = current_reads(view)
    tail = recent_start(view)
    results: dict[str, Tier] = {}
    tiers: list[Tier] = []
    for index, message in enumerate(view):
        tier: Tier = "important" if index >= tail else "standard"
        if message.role == "assistant" and _has_text(message):
            tier = "important"
        if is_typed_by_user(message):
            tier = "critical"
        for result in message.tool_results:
            result_tier = _result_tier(result, critical_results, important_results, index >= tail)
            results[result.call_id] = result_tier
            tier = max(tier, result_tier, key=TIER_ORDER.__getitem__)
        tiers.append(tier)
    return Tiers(tuple(tiers), results)


def _result_tier(result: ToolResult, critical: set[str], important: set[str], recent: bool) -> Tier:
    if result.call_id in critical:
        return "critical"
    if recent or result.call_id in important:
        return "important"
    return "standard"


def _has_text(message: Message) -> bool:
    return any(isinstance(p, Text) and p.text.strip() for p in message.parts)


def _canonical(arguments: Mapping[str, Any]) -> str:
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False, default=str)
