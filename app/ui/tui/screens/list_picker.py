"""A modal list to pick one line from: the shape of /resume's and a command's follow-up pickers."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from lull.model.text import terminal_text


class ListPicker(ModalScreen[str | None]):
    """Lists ``(label, value)`` rows under ``question``; dismisses with the chosen row's value, or
    None on Esc."""

    DEFAULT_CSS = """
    ListPicker { align: center middle; background: $background 60%; }
    ListPicker > Vertical {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 80%;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    ListPicker OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012

    def __init__(self, question: str, rows: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.question = question
        self.rows = tuple(rows)

    def compose(self) -> ComposeResult:
        """The question and the rows."""
        with Vertical():
            yield Static(Text(f"{self.question} (Enter picks, Esc cancels)", style="bold"))
            yield OptionList(
                *[
                    Option(Text(terminal_text(label)), id=str(i))
                    for i, (label, _) in enumerate(self.rows)
                ]
            )

    def on_mount(self) -> None:
        """Focus the list."""
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) picks a row."""
        event.stop()
        self.dismiss(self.rows[int(event.option.id or 0)][1])

    def action_cancel(self) -> None:
        """Pick nothing."""
        self.dismiss(None)
