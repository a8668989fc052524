"""The working set: old tool results a clearing keeps because the work still uses them.

Clearing keeps the newest N results (``toolResultsNumToKeep``); that alone drops most of what
a resumed task needs (measured on real agent runs cut by pauses: 12% of what later steps
quote had been cleared, each a recall the model pays for). Beyond the newest N, a clearing
keeps these, each with the reason ``/context`` shows:

- **quoted**: a result a recent assistant message quotes — its text or a tool call's
  arguments among the last :data:`RECENT_MESSAGES` assistant messages contain a distinctive
  line of the result (at least :data:`QUOTE_CHARS` characters);
- **edited file**: the latest read of every file the recent work edits (``edit`` /
  ``write_file``, or a shell command that writes it: ``sed -i``, ``>``, ``tee``, among the
  calls of the last :data:`RECENT_MESSAGES` assistant messages);
- **repeated command**: the latest result of a shell command run more than once, when that
  latest run is recent (the tests being worked on);
- **re-read file**: the latest read of a file read more than once, when that latest read is
  recent (a file the work keeps coming back to is read again after a clearing: a full copy
  written to the cache, where keeping it costs a cache read and the next read is a pointer).

Error results and notes are never cleared anyway (``idle.py``). Pure functions.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from lull.context.repeats import holds_output
from lull.model.messages import Message, Text, ToolCall, ToolResult

KeepReason = Literal["quoted", "edited_file", "repeated_command", "reread_file"]
QUOTE_CHARS = 30
"""The shortest line (stripped) that counts as a quote of a result."""
RECENT_MESSAGES = 20
"""How many of the latest assistant messages say what the work is using."""
READ_TOOLS = frozenset({"read_file"})
EDIT_TOOLS = frozenset({"edit", "write_file"})
SHELL_TOOLS = frozenset({"run_shell_command"})
_PATH_KEYS = ("path", "file_path", "absolute_path")
_SHELL_WRITE = re.compile(
    r"(?:sed\s+-i\S*\s+(?:-e\s+)?(?:'[^']*'|\"[^\"]*\"|\S+)\s+|>>?\s*|tee\s+(?:-a\s+)?)"
    r"(?P<path>[\w./~-]+)"
)


@dataclass(frozen=True, slots=True)
class Kept:
    """One result the working set keeps, and why."""

    call_id: str
    reason: KeepReason
    detail: str = ""

    def describe(self) -> str:
        """``toolu_1: the latest read of src/a.py, which the session edits``."""
        match self.reason:
            case "quoted":
                why = "quoted by recent work"
            case "edited_file":
                why = f"the latest read of {self.detail}, which the session edits"
            case "repeated_command":
                why = f"the latest run of a repeated command ({self.detail})"
            case "reread_file":
                why = f"the latest read of {self.detail}, which the session reads again and again"
            case _:
                assert_never(self.reason)
        return f"{self.call_id}: {why}"


def working_set(view: Sequence[Message], candidates: Sequence[ToolResult]) -> list[Kept]:
    """Which of ``candidates`` (results a clearing would remove) the work still uses."""
    if not candidates:
        return []
    calls = {p.id: p for m in view for p in m.parts if isinstance(p, ToolCall)}
    recent = recent_calls(view)
    wanted = {r.call_id for r in candidates}
    kept: dict[str, Kept] = {}
    for item in (
        *_edited_files(view, calls, wanted, recent),
        *_repeated_commands(view, calls, wanted, recent),
        *_reread_files(view, calls, wanted, recent),
        *_quoted(view, candidates),
    ):
        kept.setdefault(item.call_id, item)
    order = {r.call_id: n for n, r in enumerate(candidates)}
    return sorted(kept.values(), key=lambda k: order[k.call_id])


def _results(view: Sequence[Message]) -> list[ToolResult]:
    return [p for m in view for p in m.parts if isinstance(p, ToolResult)]


def _path(arguments: Mapping[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value.removeprefix("./")
    return None


def _command(call: ToolCall | None) -> str | None:
    if call is None or call.name not in SHELL_TOOLS:
        return None
    command = call.arguments.get("command")
    return " ".join(command.split()) if isinstance(command, str) else None


def shell_written(command: str) -> set[str]:
    """The files a shell command writes (``sed -i``, ``>``, ``>>``, ``tee``)."""
    return {m.group("path").removeprefix("./") for m in _SHELL_WRITE.finditer(command)}


def _names(command: str, path: str) -> bool:
    """Whether ``command`` names ``path`` as one of its words."""
    try:
        words = shlex.split(command, comments=False)
    except ValueError:
        words = command.split()
    return any(w.removeprefix("./") == path or w.endswith("/" + path) for w in words)


def recent_calls(view: Sequence[Message], count: int = RECENT_MESSAGES) -> set[str]:
    """The ids of the tool calls in the last ``count`` assistant messages."""
    ids: set[str] = set()
    for message in reversed(view):
        if message.role != "assistant":
            continue
        ids.update(p.id for p in message.parts if isinstance(p, ToolCall))
        count -= 1
        if count <= 0:
            break
    return ids


def _edited_files(
    view: Sequence[Message], calls: Mapping[str, ToolCall], wanted: set[str], recent: set[str]
) -> list[Kept]:
    """The latest read of every file the recent work edits (by a tool or a shell command)."""
    edited: set[str] = set()
    for call in (calls[i] for i in recent if i in calls):
        if call.name in EDIT_TOOLS and (path := _path(call.arguments)):
            edited.add(path)
        elif (command := _command(call)) is not None:
            edited |= shell_written(command)
    if not edited:
        return []
    latest: dict[str, str] = {}
    for result in _results(view):
        if result.is_error:
            continue
        source = calls.get(result.call_id)
        if source is None:
            continue
        if source.name in READ_TOOLS and (path := _path(source.arguments)) in edited:
            latest[path] = result.call_id
        elif (command := _command(source)) is not None and not shell_written(command):
            for path in edited:
                if _names(command, path):
                    latest[path] = result.call_id
    return [Kept(i, "edited_file", p) for p, i in sorted(latest.items()) if i in wanted]


def _repeated_commands(
    view: Sequence[Message], calls: Mapping[str, ToolCall], wanted: set[str], recent: set[str]
) -> list[Kept]:
    """The latest result of each shell command run more than once, latest run recent."""
    runs: dict[str, list[str]] = {}
    for result in _results(view):
        command = _command(calls.get(result.call_id))
        if command is not None:
            runs.setdefault(command, []).append(result.call_id)
    return [
        Kept(ids[-1], "repeated_command", _short(command))
        for command, ids in runs.items()
        if len(ids) > 1 and ids[-1] in wanted and ids[-1] in recent
    ]


def _reread_files(
    view: Sequence[Message], calls: Mapping[str, ToolCall], wanted: set[str], recent: set[str]
) -> list[Kept]:
    """The latest full copy of each file read more than once, latest read recent (a repeated
    read answered by a pointer leaves the copy in the read it points to)."""
    reads: dict[str, list[ToolResult]] = {}
    for result in _results(view):
        source = calls.get(result.call_id)
        if result.is_error or source is None or source.name not in READ_TOOLS:
            continue
        if (path := _path(source.arguments)) is not None:
            reads.setdefault(path, []).append(result)
    kept = []
    for path, results in sorted(reads.items()):
        if len(results) < 2 or results[-1].call_id not in recent:
            continue
        full = [r.call_id for r in results if holds_output(r)]
        if full and full[-1] in wanted:
            kept.append(Kept(full[-1], "reread_file", path))
    return kept


def _short(command: str, limit: int = 40) -> str:
    return command if len(command) <= limit else command[: limit - 1] + "…"


def recent_words(view: Sequence[Message], count: int = RECENT_MESSAGES) -> str:
    """The text and tool-call arguments of the last ``count`` assistant messages."""
    said: list[str] = []
    for message in reversed(view):
        if message.role != "assistant":
            continue
        for part in message.parts:
            if isinstance(part, Text):
                said.append(part.text)
            elif isinstance(part, ToolCall):
                said.extend(str(v) for v in part.arguments.values())
        count -= 1
        if count <= 0:
            break
    return "\n".join(said)


def _quoted(view: Sequence[Message], candidates: Sequence[ToolResult]) -> list[Kept]:
    """The candidates a recent assistant message quotes a distinctive line of."""
    said = recent_words(view)
    if len(said) < QUOTE_CHARS:
        return []
    kept = []
    for result in candidates:
        lines = {line.strip() for line in result.content.splitlines()}
        if any(len(line) >= QUOTE_CHARS and line in said for line in lines):
            kept.append(Kept(result.call_id, "quoted"))
    return kept
