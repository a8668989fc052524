"""The ``read_file`` tool: numbered lines of a text file, a window at a time."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lull.model.media import human_size, image_bytes
from lull.tools.base import PATH_ALIASES, ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.files.access import read_text, reads_from_editor
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.files.text import check_regular_file, looks_binary
from lull.tools.media.images import ImageRefused, read_image_file, sniff_media_type
from lull.tools.media.regular import NotRegularFile
from lull.tools.params import doc

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000

DESCRIPTION = f"""\
Read a text file from the workspace. Lines come back numbered like `cat -n` \
(line number, a tab, then the line), starting at 1.
- `path`: absolute, or relative to the workspace.
- By default up to {DEFAULT_LIMIT} lines from the start are returned. For long files pass \
`offset` (1-based number of the first line to show) and `limit` (how many lines).
- When output is cut short it says so and tells you which `offset` reads on.
- Lines longer than {MAX_LINE_CHARS} characters are shortened.
- Images (PNG, JPEG, GIF, WebP) come back as the picture itself when the model takes \
images; other binary files are refused. Use list_directory for directories.
- Read a file before editing it; the line-number prefix is not part of the file's text."""


@dataclass(frozen=True, slots=True)
class ReadFileParams:
    """The arguments of ``read_file``."""

    path: str = field(metadata=doc("File to read (relative to the workspace)."))
    offset: int = field(default=1, metadata=doc("1-based line number to start from (default 1)."))
    limit: int = field(
        default=DEFAULT_LIMIT,
        metadata=doc(f"Maximum number of lines to return (default {DEFAULT_LIMIT})."),
    )


class _Window:
    """Collects the numbered lines of one read within a line and character budget."""

    def __init__(self, offset: int, limit: int, max_chars: int) -> None:
        self.offset = offset
        self.limit = limit
        self.max_chars = max_chars
        self.lines: list[str] = []
        self.chars = 0
        self.last = offset - 1
        self.cut_by_chars = False

    def offer(self, number: int, line: str) -> None:
        """Add line ``number`` if it is in the window and fits the budget."""
        if number < self.offset or self.cut_by_chars or len(self.lines) >= self.limit:
            return
        text = line.rstrip("\r\n")
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + f" [... line cut at {MAX_LINE_CHARS} characters]"
        rendered = f"{number:6}\t{text}\n"
        if self.lines and self.chars + len(rendered) > self.max_chars:
            self.cut_by_chars = True
            return
        self.lines.append(rendered)
        self.chars += len(rendered)
        self.last = number


def _read_window(
    lines: Iterable[str], offset: int, limit: int, max_chars: int
) -> tuple[_Window, int]:
    """Scan the lines once: the requested window and the total number of lines."""
    window = _Window(offset, limit, max_chars)
    total = 0
    for total, line in enumerate(lines, start=1):
        window.offer(total, line)
    return window, total


def _footer(window: _Window, total: int) -> str:
    """Say what was shown and how to read on when the window stopped early."""
    if window.last >= total:
        return ""
    reason = "output size limit" if window.cut_by_chars else f"limit of {window.limit} lines"
    return (
        f"\n[showing lines {window.offset}-{window.last} of {total} ({reason}); "
        f"call read_file with offset={window.last + 1} to read more]"
    )


class ReadFileTool(TypedTool[ReadFileParams]):
    """Read a text file as numbered lines, refusing binary files and capping size."""

    name = "read_file"
    description = DESCRIPTION
    params = ReadFileParams
    read_only = True
    compactable = True
    aliases: Mapping[str, str] = {
        **PATH_ALIASES,
        "start_line": "offset",
        "line_offset": "offset",
        "max_lines": "limit",
        "num_lines": "limit",
        "line_count": "limit",
    }
    fingerprint_keys = ("path", "offset", "limit")

    async def call(self, params: ReadFileParams, ctx: ToolContext) -> ToolOutput:
        """Return the requested lines of the file, numbered."""
        offset, limit = params.offset, params.limit
        if offset < 1:
            raise ToolError(f"read_file: offset must be 1 or more (got {offset})")
        if limit < 1:
            raise ToolError(f"read_file: limit must be 1 or more (got {limit})")
        path = resolve_in_workspace(params.path, ctx, reading=True)
        shown = display_path(path, ctx)
        check_regular_file(path, shown)
        if _is_image(path):
            return _read_image(path, shown)
        if looks_binary(path):
            raise ToolError(
                f"{shown} is a binary file (NUL bytes in the first 8 KiB); "
                "read_file shows text only"
            )
        if reads_from_editor(ctx):  # the editor's buffer, unsaved changes included
            text = await read_text(path, shown, ctx)
            window, total = _read_window(
                text.splitlines(keepends=True), offset, limit, ctx.max_output_chars
            )
        else:
            with path.open("r", encoding="utf-8", errors="replace", newline="") as handle:
                window, total = _read_window(handle, offset, limit, ctx.max_output_chars)
        if total == 0:
            return ToolOutput(f"({shown} is empty)", metadata={"path": str(path), "lines": 0})
        if offset > total:
            raise ToolError(
                f"read_file: offset {offset} is past the end of {shown} ({total} lines)"
            )
        content = "".join(window.lines) + _footer(window, total)
        meta = {"path": str(path), "lines": total, "first": offset, "last": window.last}
        return ToolOutput(content, metadata=meta)


def _is_image(path: Path) -> bool:
    with path.open("rb") as handle:
        return sniff_media_type(handle.read(16)) is not None


def _read_image(path: Path, shown: str) -> ToolOutput:
    """An image file: the picture goes with the result (to models that take images)."""
    try:
        image = read_image_file(path)
    except NotRegularFile as problem:
        raise ToolError(f"read_file: {shown} is {problem}") from None
    except ImageRefused as problem:
        raise ToolError(f"read_file: {shown} is an image that cannot be sent: {problem}") from None
    size = human_size(image_bytes(image))
    text = f"[image {shown}: {image.media_type}, {size}]"
    return ToolOutput(text, images=(image,), metadata={"path": str(path), "image": True})
