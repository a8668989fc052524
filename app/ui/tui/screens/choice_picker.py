"""A command's follow-up choices (``CommandResult.follow_ups``, e.g. /rewind's prompts)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.commands import FollowUp


class ChoicePicker(ModalScreen[str | None]):
    """Lists the choices; dismisses with the chosen one's command line, or None on Esc."""

    DEFAULT_CSS = """
    ChoicePicker { align: center middle; background: $background 60%; }
    ChoicePicker > Vertical {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 80%;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    ChoicePicker OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012

    def __init__(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        super().__init__()
        self.question = question or "Which one?"
        self.choices = choices

    def compose(self) -> ComposeResult:
        """The question and the choices."""
        with Vertical():
            yield Static(Text(f"{self.question} (Enter picks, Esc cancels)", style="bold"))
            yield OptionList(
                *[Option(Text(c.label), id=str(i)) for i, c in enumerate(self.choices)]
            )

    def on_mount(self) -> None:
        """Focus the list."""
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) picks a choice."""
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)].command)

    def action_cancel(self) -> None:
        """Do nothing."""
        self.dismiss(None)
