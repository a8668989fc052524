"""The /resume picker: choose one of this workspace's saved sessions."""

from __future__ import annotations

from lull.commands import SessionChoice, choice_line
from lull.ui.tui.screens.list_picker import ListPicker


class SessionPicker(ListPicker):
    """Lists sessions, newest first; dismisses with the chosen session id, or None on Esc
    (the current session stays)."""

    def __init__(self, choices: tuple[SessionChoice, ...]) -> None:
        super().__init__("Resume which session?", [(choice_line(c), c.id) for c in choices])
