"""The ``glob`` tool: find files by name pattern, newest first."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.output import cap_output
from lull.tools.search.globpattern import compile_glob
from lull.tools.search.walk import SKIP_DIRS, walk_files

MAX_RESULTS = 200

DESCRIPTION = f"""\
Find files whose path matches a glob pattern, most recently modified first.
- `pattern`: matched against paths relative to `path`: `*` and `?` stay within one \
directory level, `**` spans any number of directories, `{{a,b}}` lists alternatives. \
Examples: `**/*.py`, `src/**/*.{{ts,tsx}}`, `*.md` (top level only), `**/test_*.py`.
- `path`: directory to search in (default: the workspace).
- Returns workspace-relative paths, newest first, at most {MAX_RESULTS}.
- .git, node_modules, .venv and __pycache__ are skipped unless the pattern names them.
- Use this to locate files by name; use grep_search to search their contents."""


def _find(root: Path, pattern: str, stop: threading.Event) -> list[tuple[float, Path]]:
    """(mtime, path) of every file under ``root`` whose relative path matches."""
    regex = compile_glob(pattern)
    skip = frozenset(d for d in SKIP_DIRS if d not in pattern)
    found: list[tuple[float, Path]] = []
    for path in walk_files(root, skip_dirs=skip, stop=stop):
        if regex.match(path.relative_to(root).as_posix()):
            try:
                found.append((path.stat().st_mtime, path))
            except OSError:
                continue
    found.sort(key=lambda item: (-item[0], str(item[1])))
    return found


class GlobTool(Tool):
    """List files matching a glob pattern, newest first."""

    name = "glob"
    description = DESCRIPTION
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob pattern, e.g. '**/*.py'."},
            "path": {
                "type": "string",
                "description": "Directory to search in (default: the workspace).",
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True
    aliases: Mapping[str, str] = {
        "glob": "pattern",
        "glob_pattern": "pattern",
        "query": "pattern",
        "dir": "path",
        "directory": "path",
    }
    fingerprint_keys = ("pattern", "path")
    compactable = True

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Return matching files, newest first, capped."""
        pattern = str(args["pattern"]).strip()
        if not pattern:
            raise ToolError("glob: pattern is empty")
        if pattern.startswith("/") or ".." in pattern.split("/"):
            raise ToolError(
                f"glob: pattern {pattern!r} must be relative; put the directory in `path` instead"
            )
        root = resolve_in_workspace(str(args.get("path", ".")), ctx)
        if not root.is_dir():
            raise ToolError(f"glob: {display_path(root, ctx)} is not a directory")
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(_find, root, pattern, stop)
        except asyncio.CancelledError:
            stop.set()
            raise
        if not found:
            return ToolOutput(f"No files match {pattern!r} in {display_path(root, ctx)}")
        lines = [display_path(path, ctx) for _, path in found[:MAX_RESULTS]]
        if len(found) > MAX_RESULTS:
            lines.append(
                f"[... {len(found) - MAX_RESULTS:,} more files not shown; narrow the pattern]"
            )
        content = cap_output("\n".join(lines), ctx, "file list")
        return ToolOutput(content, metadata={"count": len(found)})
