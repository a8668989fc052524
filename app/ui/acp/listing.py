"""``session/list``: lull's saved sessions of a directory, as ``/resume`` lists them (newest
first, those holding a message), for the editor's history; any of them opens with
``session/load``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lull.commands import list_sessions
from lull.engine.sessions.store import SessionStore
from lull.settings.paths import sessions_dir

if TYPE_CHECKING:
    from acp.schema import SessionInfo

MAX_LISTED = 100
"""How many sessions one answer lists (the newest; there is no next page)."""


def saved_sessions(workspace: Path, root: Path | None = None) -> list[SessionInfo]:
    """The saved sessions of ``workspace`` (``root``: where sessions are stored), newest
    first: id, directory, first prompt as the title, last activity (ISO 8601, UTC)."""
    from acp.schema import SessionInfo

    store = SessionStore(sessions_dir() if root is None else root, workspace)
    return [
        SessionInfo(
            session_id=choice.id,
            cwd=str(workspace),
            title=choice.first_prompt or None,
            updated_at=datetime.fromtimestamp(choice.updated_at, UTC).isoformat(),
        )
        for choice in list_sessions(store, limit=MAX_LISTED)
    ]
