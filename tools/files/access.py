"""Where the file tools read and write text: the editor's buffers when lull runs in one that
offers them (``ToolContext.editor``: ACP's ``fs/*``, so unsaved changes are what the model
reads and edits), else the disk (anchored, atomic, journalled)."""

from __future__ import annotations

from pathlib import Path

from lull.tools.base import ToolContext, ToolError
from lull.tools.files.paths import root_of
from lull.tools.files.text import read_text_exact, write_text_or_fail


def reads_from_editor(ctx: ToolContext) -> bool:
    """Whether file text comes from the editor."""
    return ctx.editor is not None and ctx.editor.reads


async def read_text(path: Path, shown: str, ctx: ToolContext) -> str:
    """The whole text of ``path`` (``shown`` names it in errors)."""
    if ctx.editor is not None and ctx.editor.reads:
        try:
            return await ctx.editor.read_text(path)
        except OSError as error:
            raise ToolError(f"could not read {shown} from the editor: {error}") from error
    return read_text_exact(path, shown, root_of(path, ctx))


async def write_text(path: Path, text: str, shown: str, ctx: ToolContext) -> None:
    """Replace the text of ``path`` (missing directories made)."""
    if ctx.editor is not None and ctx.editor.writes:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            await ctx.editor.write_text(path, text)
        except OSError as error:
            raise ToolError(f"could not write {shown} in the editor: {error}") from error
        return
    write_text_or_fail(
        path, text, shown, root=root_of(path, ctx), journal=ctx.pending_writes_dir, create_dirs=True
    )
