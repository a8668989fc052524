"""A command's follow-up choices (``CommandResult.follow_ups``, e.g. /rewind's prompts)."""

from __future__ import annotations

from lull.commands import FollowUp
from lull.ui.tui.screens.list_picker import ListPicker


class ChoicePicker(ListPicker):
    """Lists the choices; dismisses with the chosen one's command line, or None on Esc."""

    def __init__(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        super().__init__(question or "Which one?", [(c.label, c.command) for c in choices])
