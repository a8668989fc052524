"""The completion list shown above the prompt for ``/commands`` and ``@paths``."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from lull.model.text import terminal_text
from lull.ui.shared.completion import Completion, CompletionRequest

MAX_HEIGHT = 8


class CompletionMenu(OptionList, can_focus=False):
    """A small list the prompt drives with Up/Down, Tab/Enter and Esc (it never takes focus)."""

    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 8;
        margin: 0 1;
        border: round $primary;
        background: $surface;
    }
    CompletionMenu.-open { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: CompletionRequest | None = None

    @property
    def is_open(self) -> bool:
        """Whether choices are showing."""
        return self.request is not None

    def open(self, request: CompletionRequest) -> None:
        """Show the choices of ``request``, the first one highlighted."""
        self.request = request
        options = []
        for item in request.items:
            label = Text(terminal_text(item.value))  # a file name may hold anything
            if item.description:
                label.append(f"  {terminal_text(item.description)}", style="dim")
            options.append(Option(label))
        self.set_options(options)
        self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        """Hide the menu."""
        self.request = None
        self.remove_class("-open")
        self.clear_options()

    def move(self, delta: int) -> None:
        """Highlight the previous (-1) or next (+1) choice, wrapping around."""
        if self.request is None or not self.request.items:
            return
        count = len(self.request.items)
        self.highlighted = ((self.highlighted or 0) + delta) % count

    @property
    def choice(self) -> Completion | None:
        """The highlighted choice."""
        if self.request is None or self.highlighted is None:
            return None
        return self.request.items[self.highlighted]
