"""lull's tool calls as ACP tool calls: their kind, title, locations and content (an edit as a
diff), and which of them the editor has seen start and finish.

Every call the editor is told about gets exactly one final update (``completed`` or
``failed``): when a turn is cancelled, :meth:`ToolCallTracker.unfinished` closes the ones
the engine ended without an event.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lull.model.messages import ToolCall, ToolResult

if TYPE_CHECKING:
    from acp.schema import (
        ContentToolCallContent,
        FileEditToolCallContent,
        TerminalToolCallContent,
        ToolCallLocation,
        ToolCallProgress,
        ToolCallStart,
    )

    ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

AcpToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
"""The ACP schema's ``ToolKind``: what the editor may show an icon for."""

KINDS: Mapping[str, AcpToolKind] = {
    "read_file": "read",
    "list_directory": "read",
    "recall": "read",
    "edit": "edit",
    "write_file": "edit",
    "grep_search": "search",
    "glob": "search",
    "tool_search": "search",
    "run_shell_command": "execute",
    "web_fetch": "fetch",
    "web_search": "fetch",
    "note": "think",
    "todo_write": "think",
}
MAX_RESULT_CHARS = 20_000
"""How much of a tool's result text the editor is sent (the model's copy is not cut here)."""
CANCELLED_TEXT = "cancelled: the turn was stopped before this call finished"


def tool_kind(name: str) -> AcpToolKind:
    """The ACP kind of lull's tool ``name`` (``other`` for MCP tools and ``task``)."""
    return KINDS.get(name, "other")


def tool_title(call: ToolCall, summary: str) -> str:
    """One line naming the call, as lull's terminal front ends show it."""
    return f"{call.name}({summary})" if summary else call.name


def call_locations(call: ToolCall, workspace: Path) -> list[ToolCallLocation]:
    """The file a call works on, as an absolute path (and line, for a read with an offset)."""
    from acp.schema import ToolCallLocation

    path = _path_argument(call.arguments, workspace)
    if path is None:
        return []
    offset = call.arguments.get("offset")
    line = offset if isinstance(offset, int) and offset >= 1 else None
    return [ToolCallLocation(path=str(path), line=line)]


def proposed_content(call: ToolCall, workspace: Path) -> list[ToolContent]:
    """What an edit will change, as an ACP diff (empty for any other call): ``edit``'s old
    and new text, or ``write_file``'s new content over the file's current text."""
    from acp.helpers import tool_diff_content

    path = _path_argument(call.arguments, workspace)
    if path is None:
        return []
    arguments = call.arguments
    if call.name == "edit":
        old, new = arguments.get("old_string"), arguments.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            return [tool_diff_content(str(path), new, old or None)]
    if call.name == "write_file" and isinstance(arguments.get("content"), str):
        return [tool_diff_content(str(path), arguments["content"], _current_text(path))]
    return []


def result_content(call: ToolCall, result: ToolResult, workspace: Path) -> list[ToolContent]:
    """What the editor shows under a finished call: the diff of a successful edit, else the
    result's text (cut to :data:`MAX_RESULT_CHARS`)."""
    from acp.helpers import text_block, tool_content

    if not result.is_error:
        diff = proposed_content(call, workspace)
        if call.name == "edit" and diff:
            return diff
    text = result.content
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n[… {len(text) - MAX_RESULT_CHARS:,} more characters]"
    return [tool_content(text_block(text))] if text else []


class ToolCallTracker:
    """The calls of one ACP session the editor has been told about, and which have ended."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._open: dict[str, ToolCall] = {}
        self._announced: set[str] = set()
        self._terminals: dict[str, str] = {}

    def start(self, call: ToolCall, summary: str) -> ToolCallStart | None:
        """The ``tool_call`` announcing ``call`` (pending), or None if it was announced."""
        from acp.helpers import start_tool_call

        if call.id in self._announced:
            return None
        self._announced.add(call.id)
        self._open[call.id] = call
        return start_tool_call(
            call.id,
            tool_title(call, summary),
            kind=tool_kind(call.name),
            status="pending",
            content=self._terminal(call.id) or proposed_content(call, self.workspace) or None,
            locations=call_locations(call, self.workspace) or None,
            raw_input=dict(call.arguments),
        )

    def is_open(self, call_id: str) -> bool:
        """Whether the editor was told ``call_id`` started, and not yet that it ended."""
        return call_id in self._open

    def running(self, call: ToolCall) -> ToolCallProgress:
        """The update saying ``call`` runs now (it was approved)."""
        from acp.helpers import update_tool_call

        return update_tool_call(call.id, status="in_progress")

    def finish(self, call: ToolCall, result: ToolResult) -> ToolCallProgress:
        """The final update of ``call``: completed, or failed (an error, a denial)."""
        from acp.helpers import update_tool_call

        self._open.pop(call.id, None)
        content = result_content(call, result, self.workspace)
        terminal = self._terminal(call.id)
        if terminal:  # the terminal shows the output: say only how the command ended
            content = [*terminal, *_first_line(result.content)]
        return update_tool_call(
            call.id,
            status="failed" if result.is_error else "completed",
            content=content,
            raw_output={"content": result.content, "is_error": result.is_error},
        )

    def terminal(self, call_id: str, terminal_id: str) -> ToolCallProgress | None:
        """Show the editor's terminal ``terminal_id`` (running the command of ``call_id``) as
        the call's content: the update, or None while the call is not announced (its
        ``tool_call`` will carry it)."""
        from acp.helpers import update_tool_call

        self._terminals[call_id] = terminal_id
        if call_id not in self._announced:
            return None
        return update_tool_call(call_id, content=self._terminal(call_id))

    def _terminal(self, call_id: str) -> list[ToolContent]:
        """The content embedding the call's terminal (empty: it ran in none)."""
        from acp.helpers import tool_terminal_ref

        terminal_id = self._terminals.get(call_id)
        return [tool_terminal_ref(terminal_id)] if terminal_id else []

    def note(self, call_id: str, lines: list[str]) -> ToolCallProgress:
        """A progress update of a running call (a sub-agent's steps) shown as its content."""
        from acp.helpers import text_block, tool_content, update_tool_call

        return update_tool_call(call_id, content=[tool_content(text_block("\n".join(lines)))])

    def unfinished(self) -> list[ToolCallProgress]:
        """Final ``failed`` updates for every announced call that has no result yet (the
        turn was cancelled; the engine saved a "cancelled" result for each)."""
        from acp.helpers import text_block, tool_content, update_tool_call

        closing = [
            update_tool_call(
                call_id,
                status="failed",
                content=[*self._terminal(call_id), tool_content(text_block(CANCELLED_TEXT))],
                raw_output={"content": CANCELLED_TEXT, "is_error": True},
            )
            for call_id in self._open
        ]
        self._open.clear()
        return closing


def _first_line(text: str) -> list[ToolContent]:
    """The first line of a result as content (a command's exit status)."""
    from acp.helpers import text_block, tool_content

    line = text.split("\n", 1)[0]
    return [tool_content(text_block(line))] if line else []


def _path_argument(arguments: Mapping[str, Any], workspace: Path) -> Path | None:
    """A call's ``path`` argument, absolute (relative ones are under the workspace)."""
    raw = arguments.get("path")
    if not isinstance(raw, str) or not raw.strip():
        return None
    path = Path(raw).expanduser()
    return path if path.is_absolute() else workspace / path


def _current_text(path: Path, limit: int = 1_000_000) -> str | None:
    """The file's text before a write (None: it does not exist, is large or not text)."""
    try:
        if not path.is_file() or path.stat().st_size > limit:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
