"""The ``list_directory`` tool: the entries of one directory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lull.tools.base import ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.params import doc

MAX_ENTRIES = 500

DESCRIPTION = f"""\
List the entries of a directory (not recursive), sorted by name; directories end with `/`.
- `path`: the directory (default: the workspace root).
- At most {MAX_ENTRIES} entries are shown.
- Use glob to find files by pattern across many directories."""


@dataclass(frozen=True, slots=True)
class ListDirectoryParams:
    """The arguments of ``list_directory``."""

    path: str = field(default=".", metadata=doc("Directory to list (default: the workspace root)."))


def _entry_name(entry: os.DirEntry[str]) -> str:
    """The entry name, with a trailing ``/`` for directories (symlinks followed)."""
    try:
        is_dir = entry.is_dir()
    except OSError:
        is_dir = False
    return entry.name + "/" if is_dir else entry.name


def _shown(entry: os.DirEntry[str], ctx: ToolContext) -> str:
    """The entry as listed: its name, marked when the user's rules keep tools from reading it
    (the name stays, so that the model does not take it for a free name)."""
    name = _entry_name(entry)
    rule = ctx.unreadable(Path(entry.path))
    return f"{name}  [not readable: the user's {rule}]" if rule is not None else name


class ListDirectoryTool(TypedTool[ListDirectoryParams]):
    """List one directory's entries."""

    name = "list_directory"
    description = DESCRIPTION
    params = ListDirectoryParams
    read_only = True
    aliases: Mapping[str, str] = {
        "dir": "path",
        "directory": "path",
        "dir_path": "path",
        "folder": "path",
    }
    compactable = False

    async def call(self, params: ListDirectoryParams, ctx: ToolContext) -> ToolOutput:
        """Return the sorted entries of the directory."""
        path = resolve_in_workspace(params.path, ctx)
        shown = display_path(path, ctx)
        if not path.exists():
            raise ToolError(f"list_directory: directory not found: {shown}")
        if not path.is_dir():
            raise ToolError(f"list_directory: {shown} is a file, not a directory; use read_file")
        try:
            with os.scandir(path) as entries:
                names = sorted((_shown(e, ctx) for e in entries), key=lambda n: (n.lower(), n))
        except OSError as exc:
            raise ToolError(f"list_directory: cannot read {shown}: {exc.strerror}") from exc
        if not names:
            return ToolOutput(f"{shown}/ is empty")
        lines = names[:MAX_ENTRIES]
        if len(names) > MAX_ENTRIES:
            lines.append(f"[... {len(names) - MAX_ENTRIES:,} more entries not shown]")
        noun = "entry" if len(names) == 1 else "entries"
        header = f"{shown}/ ({len(names)} {noun})"
        return ToolOutput(header + "\n" + "\n".join(lines), metadata={"count": len(names)})
