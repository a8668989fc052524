"""Repeated results across turns: a fresh output the model already has becomes a pointer.

After a ``read_file``, ``grep_search``, ``glob`` or ``list_directory`` call has run (and its
``PostToolUse`` hooks), its output is compared with the earlier results of the same file or
the same query that the session's view still shows in full (the rules and the pointer texts
are in :mod:`lull.context.repeats`). Which file or query an earlier call was about is
remembered as calls run, and worked out from the call's arguments for calls this process did
not run (a resumed session), so the check follows the session, not the process.

``context.repeatPointers`` switches it (:attr:`RepeatedResults.enabled`); ``sent_as`` is how
the model sees a result (the context fitter's truncation, wired by the agent), so a range is
pointed to only in an earlier read the model saw whole.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from lull.context.repeats import QUERY_TOOLS, READ_TOOL, query_pointer, read_pointer
from lull.engine.sessions.session import Session
from lull.model import defaults
from lull.model.messages import ToolCall, ToolResult
from lull.tools.base import ToolContext, ToolError, ToolOutput
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.registry import ToolRegistry

log = logging.getLogger("lull.repeats")

SentAs = Callable[[ToolResult], ToolResult]
"""A result as the model is sent it (truncated when oversized)."""


def _as_is(result: ToolResult) -> ToolResult:
    return result


class RepeatedResults:
    """Turns repeated outputs into pointers to the copy the model still has."""

    def __init__(self, enabled: bool = defaults.REPEAT_POINTERS) -> None:
        self.enabled = enabled
        self.sent_as: SentAs = _as_is
        self._keys: dict[tuple[str, str], str] = {}

    def check(
        self,
        registry: ToolRegistry,
        context: ToolContext,
        session: Session,
        call: ToolCall,
        output: ToolOutput,
    ) -> ToolOutput:
        """``output`` of ``call`` (its arguments as it ran), or a pointer in its place when
        an earlier result in ``session``'s view shows it already."""
        if call.name != READ_TOOL and call.name not in QUERY_TOOLS:
            return output
        key = self._new_key(registry, call, output)
        if key is None or output.is_error or output.images:
            return output
        self._keys[(session.id, call.id)] = key
        if not self.enabled:
            return output
        earlier = self._earlier(registry, context, session, call.name, key)
        if call.name == READ_TOOL:
            pointer = read_pointer(
                output.content, _shown(output, context), _lines(output.metadata), earlier
            )
        else:
            pointer = query_pointer(output.content, call.name, earlier)
        if pointer is None:
            return output
        log.info("%s %s repeats an output still in the context: pointed to it", call.name, call.id)
        return replace(output, content=pointer, display=None)

    def _new_key(self, registry: ToolRegistry, call: ToolCall, output: ToolOutput) -> str | None:
        """What the call that just ran was about: the file read (as resolved), or the query."""
        if call.name == READ_TOOL:
            path = output.metadata.get("path")
            return f"{READ_TOOL}:{path}" if isinstance(path, str) and path else None
        tool = registry.get(call.name)
        return tool.fingerprint(call.arguments) if tool is not None else None

    def _earlier(
        self,
        registry: ToolRegistry,
        context: ToolContext,
        session: Session,
        name: str,
        key: str,
    ) -> list[ToolResult]:
        """The results of ``name`` about ``key`` the view shows, as sent, untruncated, newest
        first."""
        view = session.view()
        calls = {c.id: c for m in view for c in m.tool_calls if c.name == name}
        found: list[ToolResult] = []
        for message in reversed(view):
            for result in reversed(message.tool_results):
                call = calls.get(result.call_id)
                if call is None or self._key(registry, context, session, call) != key:
                    continue
                if self.sent_as(result) is result:
                    found.append(result)
        return found

    def _key(
        self, registry: ToolRegistry, context: ToolContext, session: Session, call: ToolCall
    ) -> str | None:
        """What an earlier call was about: remembered, else worked out from its arguments."""
        known = self._keys.get((session.id, call.id))
        if known is not None:
            return known
        arguments: Any = registry.prepare(call.name, call.arguments).arguments
        if not isinstance(arguments, Mapping):
            return None
        if call.name == READ_TOOL:
            path = arguments.get("path")
            if not isinstance(path, str):
                return None
            try:
                resolved = resolve_in_workspace(path, context, reading=True)
            except (ToolError, OSError, ValueError):
                return None
            key = f"{READ_TOOL}:{resolved}"
        else:
            tool = registry.get(call.name)
            if tool is None:
                return None
            key = tool.fingerprint(arguments)
        self._keys[(session.id, call.id)] = key
        return key


def _shown(output: ToolOutput, context: ToolContext) -> str:
    """The file a read output is about, as the model is shown paths."""
    path = output.metadata.get("path")
    if not isinstance(path, str):
        return "the file"
    return display_path(Path(path), context)


def _lines(metadata: Mapping[str, Any]) -> tuple[int, int]:
    """The first and last line a read output shows."""
    first, last = metadata.get("first", 1), metadata.get("last", 0)
    return (int(first), int(last)) if isinstance(first, int) and isinstance(last, int) else (1, 0)
