"""The /resume picker: choose one of this workspace's saved sessions."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from app.commands import SessionChoice, choice_line


class SessionPicker(ModalScreen[str | None]):
    """Lists sessions; dismisses with the chosen session id, or None on Esc."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; background: $background 60%; }
    SessionPicker > Vertical {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 80%;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    SessionPicker OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012

    def __init__(self, choices: tuple[SessionChoice, ...]) -> None:
        super().__init__()
        self.choices = choices

    def compose(self) -> ComposeResult:
        """A title and the list, newest first."""
        with Vertical():
            yield Static(Text("Resume which session? (Enter picks, Esc cancels)", style="bold"))
            yield OptionList(*[Option(Text(choice_line(c)), id=c.id) for c in self.choices])

    def on_mount(self) -> None:
        """Focus the list."""
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) picks a session."""
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        """Keep the current session."""
        self.dismiss(None)
