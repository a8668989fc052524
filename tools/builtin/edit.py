"""The ``edit`` tool: exact string replacement in a file, with a short diff."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lull.tools.base import PATH_ALIASES, ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.files.access import read_text, write_text
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.params import doc

MAX_DIFF_LINES = 60

DESCRIPTION = """\
Replace exact text in a file.
- `old_string` must match the file exactly, including whitespace and indentation \
(never include the line-number prefix read_file shows). Read the file first.
- `old_string` must occur exactly once unless `replace_all` is true; if it is not \
unique, include more surrounding lines to pin down the place.
- `replace_all: true` replaces every occurrence (e.g. renaming a variable).
- `new_string` must differ from `old_string`.
- To create a new file, pass an empty `old_string` and the whole content as `new_string`.
- The write is atomic; the result shows a short unified diff."""


def _unified_diff(before: str, after: str, shown: str) -> str:
    """A unified diff of the change, cut to a readable length."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{shown}",
            tofile=f"b/{shown}",
            n=3,
        )
    )
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    if len(lines) > MAX_DIFF_LINES:
        more = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"... ({more} more diff lines)\n"]
    return "".join(lines)


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """Use CRLF in old/new when the file uses CRLF and the LF form does not match."""
    if "\r\n" in text and "\n" in old and "\r\n" not in old and old not in text:
        return old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    return old, new


def _replace(text: str, old: str, new: str, replace_all: bool, shown: str) -> tuple[str, int]:
    """The new text and how many occurrences were replaced; ToolError if ambiguous."""
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string not found in {shown}; it must match exactly, including "
            "whitespace and indentation (read the file again to copy it)"
        )
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {shown}; pass replace_all=true to replace "
            "every occurrence, or include more surrounding context to make it unique"
        )
    return text.replace(old, new), count


async def _create(path: Path, content: str, shown: str, ctx: ToolContext) -> ToolOutput:
    """Create a new file holding ``content`` (the empty-old_string form)."""
    await write_text(path, content, shown, ctx)
    diff = _unified_diff("", content, shown)
    return ToolOutput(
        f"Created {shown}\n{diff}", display=diff, metadata={"path": str(path), "created": True}
    )


@dataclass(frozen=True, slots=True)
class EditParams:
    """The arguments of ``edit``."""

    path: str = field(metadata=doc("File to edit (relative to the workspace)."))
    old_string: str = field(metadata=doc("Exact text to replace."))
    new_string: str = field(metadata=doc("Text to put in its place."))
    replace_all: bool = field(
        default=False, metadata=doc("Replace every occurrence (default false).")
    )


class EditTool(TypedTool[EditParams]):
    """Replace an exact string in a file (or create a file), atomically."""

    name = "edit"
    description = DESCRIPTION
    params = EditParams
    compactable = True
    aliases: Mapping[str, str] = {
        **PATH_ALIASES,
        "old": "old_string",
        "old_str": "old_string",
        "old_text": "old_string",
        "search": "old_string",
        "new": "new_string",
        "new_str": "new_string",
        "new_text": "new_string",
        "replacement": "new_string",
    }

    async def call(self, params: EditParams, ctx: ToolContext) -> ToolOutput:
        """Apply the replacement and return a summary with a unified diff."""
        path = resolve_in_workspace(params.path, ctx)
        old, new = params.old_string, params.new_string
        replace_all = params.replace_all
        shown = display_path(path, ctx)
        if old == new:
            raise ToolError("old_string and new_string are identical; there is nothing to change")
        if old == "" and not path.exists():
            return await _create(path, new, shown, ctx)
        text = await read_text(path, shown, ctx)
        if old == "":
            if text:
                raise ToolError(
                    f"old_string is empty but {shown} already exists and is not empty; give "
                    "the exact text to replace, or use write_file to replace the whole file"
                )
            return await _create(path, new, shown, ctx)
        old, new = _match_line_endings(text, old, new)
        updated, count = _replace(text, old, new, replace_all, shown)
        await write_text(path, updated, shown, ctx)
        diff = _unified_diff(text, updated, shown)
        noun = "occurrence" if count == 1 else "occurrences"
        return ToolOutput(
            f"Edited {shown}: replaced {count} {noun}\n{diff}",
            display=diff,
            metadata={"path": str(path), "replacements": count},
        )
