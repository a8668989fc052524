"""Telling a slash command from a message, the same way in every front end."""

from __future__ import annotations

import re

COMMAND = re.compile(r"^/([A-Za-z][\w:-]*)?(\s|$)")
QUIT_COMMANDS = frozenset({"/quit", "/exit"})


def is_command(text: str) -> bool:
    """True for ``/name ...`` (``/frontend:test`` too) or a bare ``/``; a path such as
    ``/usr/bin is broken`` is a message."""
    return COMMAND.match(text.strip()) is not None


def is_quit(text: str) -> bool:
    """True for ``/quit`` and ``/exit`` (a front end may leave before running the command)."""
    return text.strip().lower() in QUIT_COMMANDS
