"""How settings problems are reported: diagnostics for files and env, an error for CLI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found while loading settings; lull still runs.

    ``message`` is a complete one-line message that already names the file or
    variable; ``source`` is that file path or ``"env NAME"`` on its own.
    """

    level: Literal["warning", "error"]
    message: str
    source: str

    def __str__(self) -> str:
        """The line to show a user, e.g. ``warning: <message>``."""
        return f"{self.level}: {self.message}"


class SettingsError(Exception):
    """A bad command-line setting; the caller exits with status 2 and this message."""

    def __init__(self, message: str) -> None:
        """Keep ``message`` (one line naming the flag) for the caller to print."""
        super().__init__(message)
        self.message = message
