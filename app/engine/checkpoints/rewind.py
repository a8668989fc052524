"""The conversation part of ``/rewind``: a recorded context edit that hides every message
from a prompt on, so the model sees the conversation as it was before it (the session file
keeps everything, and a resumed session shows the same view)."""

from __future__ import annotations

from lull.context.view import live_summary
from lull.engine.sessions.session import Session
from lull.model.edits import Rewind
from lull.model.messages import Message


def rewind_conversation(session: Session, prompt: Message) -> Rewind | str:
    """Add the edit that takes ``session`` back to before ``prompt``; or, refused, why."""
    transcript = session.transcript
    ids = [m.id for m in transcript]
    if prompt.id not in ids:
        return "/rewind: that prompt is not in this session"
    start = ids.index(prompt.id)
    summary = live_summary(session.edits)
    if summary is not None and summary.through_id in ids and start <= ids.index(summary.through_id):
        return (
            "/rewind: that prompt was replaced by a summary (compression); rewind to a later "
            "prompt, or bring it back first with /context restore compression"
        )
    visible = {m.id for m in session.view()}
    hidden = sum(1 for m in transcript[start:] if m.id in visible)
    edit = Rewind(prompt.id, ids[-1], hidden=hidden)
    session.add_edit(edit)
    return edit
