"""The ``glob`` tool: find files by name pattern, newest first."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.output import cap_output
from lull.tools.params import doc
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


@dataclass(frozen=True, slots=True)
class GlobParams:
    """The arguments of ``glob``."""

    pattern: str = field(metadata=doc("Glob pattern, e.g. '**/*.py'."))
    path: str = field(default=".", metadata=doc("Directory to search in (default: the workspace)."))


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


class GlobTool(TypedTool[GlobParams]):
    """List files matching a glob pattern, newest first."""

    name = "glob"
    description = DESCRIPTION
    params = GlobParams
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

    async def call(self, params: GlobParams, ctx: ToolContext) -> ToolOutput:
        """Return matching files, newest first, capped."""
        pattern = params.pattern.strip()
        if not pattern:
            raise ToolError("glob: pattern is empty")
        if pattern.startswith("/") or ".." in pattern.split("/"):
            raise ToolError(
                f"glob: pattern {pattern!r} must be relative; put the directory in `path` instead"
            )
        root = resolve_in_workspace(params.path, ctx)
        if not root.is_dir():
            raise ToolError(f"glob: {display_path(root, ctx)} is not a directory")
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(_find, root, pattern, stop)
        except asyncio.CancelledError:
            stop.set()
            raise
        verdicts = {path: ctx.unreadable(path) for _, path in found}
        found = [(mtime, path) for mtime, path in found if verdicts[path] is None]
        hidden = sorted({rule for rule in verdicts.values() if rule is not None})
        count = sum(1 for rule in verdicts.values() if rule is not None)
        left_out = (
            f"[{count} matching file{'s' if count != 1 else ''} left out: the user's "
            f"{'; '.join(hidden)} keeps tools from reading them]"
            if hidden
            else ""
        )
        if not found:
            text = f"No files match {pattern!r} in {display_path(root, ctx)}"
            return ToolOutput(text + (f"\n{left_out}" if left_out else ""))
        lines = [display_path(path, ctx) for _, path in found[:MAX_RESULTS]]
        if len(found) > MAX_RESULTS:
            lines.append(
                f"[... {len(found) - MAX_RESULTS:,} more files not shown; narrow the pattern]"
            )
        if left_out:
            lines.append(left_out)
        content = cap_output("\n".join(lines), ctx, "file list")
        return ToolOutput(content, metadata={"count": len(found)})
