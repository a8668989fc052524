"""The ``grep_search`` tool: regex search over file contents."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.output import cap_output
from tools.paths import display_path, resolve_in_workspace
from tools.search import Match, python_search, rg_search

MAX_MATCHES = 200
MAX_LINE_CHARS = 300

DESCRIPTION = f"""\
Search file contents with a regular expression (Python `re` syntax) and list matching \
lines as `path:line: text`.
- `pattern`: the regex, e.g. `def \\w+_handler`, `TODO|FIXME`, `(?i)timeout` for \
case-insensitive. Escape regex characters to search literally (`foo\\(`).
- `path`: a directory or file to search (default: the whole workspace).
- `glob`: only files matching it, e.g. `*.py`, `*.{{ts,tsx}}`, `src/**/*.rs`.
- .git, node_modules, .venv, __pycache__ and binary files are skipped.
- At most {MAX_MATCHES} matches are listed; narrow the pattern, path or glob if more exist.
- Use this instead of running grep or rg through run_shell_command."""


def _compile(pattern: str) -> re.Pattern[str]:
    """The compiled regex, or a clear ToolError naming the problem."""
    if not pattern:
        raise ToolError("grep_search: pattern is empty")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"grep_search: invalid regex {pattern!r}: {exc}") from exc


def _search(
    regex: re.Pattern[str], root: Path, glob: str | None, stop: threading.Event
) -> list[Match]:
    """Run ripgrep when available, else the Python engine."""
    found = rg_search(regex.pattern, root, glob)
    return found if found is not None else python_search(regex, root, glob, stop)


def _plural(count: int, singular: str, plural: str = "") -> str:
    """``1 file`` / ``3 files``."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def _format(matches: list[Match], ctx: ToolContext) -> str:
    """``path:line: text`` lines, capped, with a count of what was left out."""
    lines = []
    for match in matches[:MAX_MATCHES]:
        text = match.text.strip()
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " [...]"
        lines.append(f"{display_path(match.path, ctx)}:{match.line}: {text}")
    files = len({m.path for m in matches})
    header = f"Found {_plural(len(matches), 'match', 'matches')} in {_plural(files, 'file')}"
    omitted = len(matches) - MAX_MATCHES
    if omitted > 0:
        lines.append(
            f"[... {omitted:,} more matches omitted; narrow the pattern, path or glob to see them]"
        )
    return header + "\n" + "\n".join(lines)


class GrepSearchTool(Tool):
    """Search file contents by regex across the workspace."""

    name = "grep_search"
    description = DESCRIPTION
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regular expression (Python syntax)."},
            "path": {
                "type": "string",
                "description": "Directory or file to search (default: the workspace).",
            },
            "glob": {
                "type": "string",
                "description": "Only search files matching this glob (e.g. '*.py').",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True
    compactable = True

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Search and list matching lines."""
        regex = _compile(str(args["pattern"]))
        root = resolve_in_workspace(str(args.get("path", ".")), ctx)
        if not root.exists():
            raise ToolError(f"grep_search: path not found: {display_path(root, ctx)}")
        glob = str(args["glob"]) if args.get("glob") else None
        stop = threading.Event()
        try:
            matches = await asyncio.to_thread(_search, regex, root, glob, stop)
        except asyncio.CancelledError:
            stop.set()
            raise
        if not matches:
            where = display_path(root, ctx)
            suffix = f" (files matching {glob})" if glob else ""
            return ToolOutput(f"No matches for {regex.pattern!r} in {where}{suffix}")
        content = cap_output(_format(matches, ctx), ctx, "search results")
        return ToolOutput(content, metadata={"matches": len(matches)})
