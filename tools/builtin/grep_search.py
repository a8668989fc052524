"""The ``grep_search`` tool: regex search over file contents."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.output import cap_output
from lull.tools.params import doc
from lull.tools.process.environment import tool_environment
from lull.tools.search.engines import Match
from lull.tools.search.run import run_search

MAX_MATCHES = 200
MAX_LINE_CHARS = 300
TIME_LIMIT_SECONDS = 30.0

DESCRIPTION = f"""\
Search file contents with a regular expression (Python `re` syntax) and list matching \
lines as `path:line: text`.
- `pattern`: the regex, e.g. `def \\w+_handler`, `TODO|FIXME`, `(?i)timeout` for \
case-insensitive. Escape regex characters to search literally (`foo\\(`).
- `path`: a directory or file to search (default: the whole workspace).
- `glob`: only files matching it, e.g. `*.py`, `*.{{ts,tsx}}`, `src/**/*.rs`.
- .git, node_modules, .venv, __pycache__ and binary files are skipped.
- At most {MAX_MATCHES} matches are listed; narrow the pattern, path or glob if more exist.
- A search stops after {TIME_LIMIT_SECONDS:.0f} s (e.g. a pattern like `(a+)+$` that \
backtracks without end); simplify the pattern or narrow the path then.
- Use this instead of running grep or rg through run_shell_command."""


@dataclass(frozen=True, slots=True)
class GrepSearchParams:
    """The arguments of ``grep_search``."""

    pattern: str = field(metadata=doc("Regular expression (Python syntax)."))
    path: str = field(
        default=".", metadata=doc("Directory or file to search (default: the workspace).")
    )
    glob: str | None = field(
        default=None, metadata=doc("Only search files matching this glob (e.g. '*.py').")
    )


def _compile(pattern: str) -> re.Pattern[str]:
    """The compiled regex, or a clear ToolError naming the problem."""
    if not pattern:
        raise ToolError("grep_search: pattern is empty")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"grep_search: invalid regex {pattern!r}: {exc}") from exc


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


class GrepSearchTool(TypedTool[GrepSearchParams]):
    """Search file contents by regex across the workspace."""

    name = "grep_search"
    description = DESCRIPTION
    params = GrepSearchParams
    read_only = True
    compactable = True
    aliases: Mapping[str, str] = {
        "query": "pattern",
        "regex": "pattern",
        "search": "pattern",
        "search_pattern": "pattern",
        "dir": "path",
        "directory": "path",
        "include": "glob",
        "file_pattern": "glob",
        "glob_pattern": "glob",
    }
    fingerprint_keys = ("pattern", "path", "glob")

    def __init__(self, time_limit: float = TIME_LIMIT_SECONDS, use_ripgrep: bool = True) -> None:
        self.time_limit = time_limit
        self.use_ripgrep = use_ripgrep

    async def call(self, params: GrepSearchParams, ctx: ToolContext) -> ToolOutput:
        """Search and list matching lines."""
        regex = _compile(params.pattern)
        root = resolve_in_workspace(params.path, ctx)
        if not root.exists():
            raise ToolError(f"grep_search: path not found: {display_path(root, ctx)}")
        glob = params.glob or None
        env = tool_environment(ctx.env_passthrough)
        try:
            found = await run_search(
                regex.pattern, root, glob, self.time_limit, env, use_ripgrep=self.use_ripgrep
            )
        except (OSError, RuntimeError) as exc:
            raise ToolError(f"grep_search: the search failed: {exc}") from exc
        if found.timed_out:
            raise ToolError(
                f"grep_search: the search for {regex.pattern!r} took longer than "
                f"{self.time_limit:g} s and was stopped (a pattern with nested repetition such "
                "as (a+)+ can backtrack without end); simplify the pattern or narrow path/glob"
            )
        matches, left_out = _readable(found.matches, ctx)
        if not matches:
            where = display_path(root, ctx)
            suffix = f" (files matching {glob})" if glob else ""
            text = f"No matches for {regex.pattern!r} in {where}{suffix}"
            return ToolOutput(text + left_out)
        content = cap_output(_format(matches, ctx) + left_out, ctx, "search results")
        return ToolOutput(content, metadata={"matches": len(matches)})


def _readable(matches: list[Match], ctx: ToolContext) -> tuple[list[Match], str]:
    """The matches in files the user's rules let tools read, and a line saying what was left
    out and by which rule ("" when nothing was)."""
    verdicts: dict[str, str | None] = {}
    kept: list[Match] = []
    for match in matches:
        key = str(match.path)
        if key not in verdicts:
            verdicts[key] = ctx.unreadable(match.path)
        if verdicts[key] is None:
            kept.append(match)
    hidden = {path: rule for path, rule in verdicts.items() if rule is not None}
    if not hidden:
        return kept, ""
    rules = sorted(set(hidden.values()))
    return kept, (
        f"\n[{_plural(len(hidden), 'file')} with matches left out: the user's "
        f"{'; '.join(rules)} keeps tools from reading them]"
    )
