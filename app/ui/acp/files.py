"""The editor's buffers as lull's file access: ``fs/read_text_file`` and
``fs/write_text_file`` where the client's capabilities offer them, so the model reads and edits
what the user sees, unsaved changes included (``ToolContext.editor``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp.interfaces import Client
    from acp.schema import ClientCapabilities


class ClientFiles:
    """:class:`~lull.tools.base.EditorFiles` over one ACP session's client."""

    def __init__(self, client: Client, session_id: str, *, reads: bool, writes: bool) -> None:
        self.client = client
        self.session_id = session_id
        self.reads = reads
        self.writes = writes

    async def read_text(self, path: Path) -> str:
        """The buffer's text (the editor reads the file when none is open)."""
        from acp.exceptions import RequestError

        try:
            response = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        except RequestError as error:
            raise OSError(str(error)) from error
        return response.content

    async def write_text(self, path: Path, text: str) -> None:
        """Replace the buffer's text; the editor saves it."""
        from acp.exceptions import RequestError

        try:
            await self.client.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )
        except RequestError as error:
            raise OSError(str(error)) from error


def client_files(
    client: Client, session_id: str, capabilities: ClientCapabilities | None
) -> ClientFiles | None:
    """The editor's file access, when its capabilities offer any of ``fs/*``."""
    fs = capabilities.fs if capabilities is not None else None
    reads = bool(fs and fs.read_text_file)
    writes = bool(fs and fs.write_text_file)
    if not (reads or writes):
        return None
    return ClientFiles(client, session_id, reads=reads, writes=writes)
