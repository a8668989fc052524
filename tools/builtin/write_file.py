"""The ``write_file`` tool: create or overwrite a whole file atomically."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lull.tools.base import PATH_ALIASES, ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.files.access import write_text
from lull.tools.files.paths import display_path, resolve_in_workspace
from lull.tools.files.text import count_lines
from lull.tools.params import doc

DESCRIPTION = """\
Write a whole file: creates it (and any missing parent directories) or replaces its \
entire content.
- `path`: absolute, or relative to the workspace. `content`: the complete new text.
- Prefer `edit` for changing part of an existing file; use write_file for new files \
or full rewrites, and read an existing file first so nothing is lost.
- The write is atomic and keeps the file's permissions.
- Do not create documentation or README files unless asked."""


@dataclass(frozen=True, slots=True)
class WriteFileParams:
    """The arguments of ``write_file``."""

    path: str = field(metadata=doc("File to write (relative to the workspace)."))
    content: str = field(metadata=doc("The complete content of the file."))


class WriteFileTool(TypedTool[WriteFileParams]):
    """Create or overwrite a text file, atomically."""

    name = "write_file"
    description = DESCRIPTION
    params = WriteFileParams
    compactable = True
    aliases: Mapping[str, str] = {
        **PATH_ALIASES,
        "contents": "content",
        "text": "content",
        "file_content": "content",
    }

    async def call(self, params: WriteFileParams, ctx: ToolContext) -> ToolOutput:
        """Write the content and say whether the file was created or overwritten."""
        path = resolve_in_workspace(params.path, ctx)
        content = params.content
        shown = display_path(path, ctx)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; give a file path to write")
        existed = path.exists()
        await write_text(path, content, shown, ctx)
        lines = count_lines(content)
        verb = "Overwrote" if existed else "Created"
        noun = "line" if lines == 1 else "lines"
        return ToolOutput(
            f"{verb} {shown} ({lines} {noun}, {len(content.encode('utf-8')):,} bytes)",
            metadata={"path": str(path), "created": not existed, "lines": lines},
        )
