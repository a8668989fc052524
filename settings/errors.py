"""How settings problems are reported: diagnostics for files and env, an error for CLI."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

_SHOW_LIMIT = 60


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


def show(value: object, limit: int | None = _SHOW_LIMIT) -> str:
    """Render a value as JSON for a message, on one line and shortened past ``limit``.

    Lone surrogates (from a JSON ``"\\ud800"`` or an undecodable file name) are written as
    ``\\ud800`` escapes, so the message can always be printed.
    """
    if isinstance(value, tuple):
        value = list(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."
