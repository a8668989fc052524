"""The line mode's prompt-toolkit completer over the shared completion candidates
(``app/ui/shared/completion.py``): ``/`` commands at the start, ``@path`` mentions anywhere."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from lull.ui.shared.completion import CommandTable, command_table, complete


class LineCompleter(Completer):
    """Completes commands at the start of the input and ``@paths`` anywhere; a path is
    inserted after the ``@`` the user typed."""

    def __init__(self, workspace: Path, commands: CommandTable | None = None) -> None:
        self.workspace = workspace
        self._commands = commands

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """Completions for the text before the cursor."""
        line = document.current_line_before_cursor
        if self._commands is None or line == "/":  # custom commands may change
            self._commands = command_table(self.workspace)
        first_line = document.cursor_position_row == 0
        request = complete(line, first_line, self.workspace, self._commands)
        if request is None:
            return
        typed = len(request.token)
        for item in request.items:
            if item.value.startswith("@"):  # keep the @, complete the path after it
                yield Completion(item.value[1:], start_position=-(typed - 1))
            else:
                yield Completion(item.value, start_position=-typed, display_meta=item.description)
