"""Completion candidates for the prompt: ``/commands`` (and their arguments) at the start of
the first line, ``@paths`` anywhere. Pure functions over the file system and the command
table; each front end only shows them (a Textual menu, a prompt-toolkit completer).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_CANDIDATES = 50
SKIPPED_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", ".mypy_cache"})
SUBCOMMANDS: dict[str, tuple[str, ...]] = {
    "context": ("restore",),
    "notes": ("add", "delete"),
    "permissions": ("allow", "ask", "deny"),
    "undo": ("force",),
}

CommandTable = Sequence[tuple[str, str]]
"""(name, summary) of each command."""


@dataclass(frozen=True)
class Completion:
    """One choice: the text that replaces the token, and a description to show beside it."""

    value: str
    description: str = ""


@dataclass(frozen=True)
class CompletionRequest:
    """What to complete on the cursor's line: the token's start column and the choices."""

    start: int
    token: str
    items: list[Completion]


def command_table(workspace: Path | None = None) -> list[tuple[str, str]]:
    """The visible slash commands as (name, summary), in help order: the built-in ones, then
    the custom commands of the user and of ``workspace``."""
    from lull.commands import command_names
    from lull.commands.registry import command_entries

    if workspace is None:
        return [(c.name, c.summary) for c in command_names()]
    return command_entries(workspace)


def command_candidates(partial: str, commands: CommandTable) -> list[tuple[str, str]]:
    """(``/name``, summary) for the commands starting with ``partial`` (without the slash),
    in alphabetical order."""
    key = partial.lower()
    found = [(f"/{name}", summary) for name, summary in commands if name.startswith(key)]
    return sorted(found)


def path_candidates(workspace: Path, partial: str, limit: int = MAX_CANDIDATES) -> list[str]:
    """Workspace entries completing ``partial`` (case-insensitive; directories first and
    ending in ``/``; hidden entries only when ``partial`` starts with a dot)."""
    head, _, prefix = partial.rpartition("/")
    base = Path(head).expanduser() if head else Path()
    directory = base if base.is_absolute() else workspace / base
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    found: list[str] = []
    lowered = prefix.lower()
    for entry in entries:
        name = entry.name
        if name in SKIPPED_DIRS or (name.startswith(".") and not prefix.startswith(".")):
            continue
        if not name.lower().startswith(lowered):
            continue
        shown = f"{head}/{name}" if head else name
        found.append(shown + "/" if entry.is_dir() else shown)
    return sorted(found, key=lambda s: (not s.endswith("/"), s.lower()))[:limit]


def complete(
    before_cursor: str,
    first_line: bool,
    workspace: Path,
    commands: CommandTable | None = None,
) -> CompletionRequest | None:
    """Choices for the token ending at the cursor (None when there are none).

    ``before_cursor`` is the cursor's line up to the cursor; ``first_line`` says whether it
    is the input's first line (only there can a command start). ``commands`` defaults to
    the real command table.
    """
    if first_line and before_cursor.startswith("/"):
        return _command_request(before_cursor, commands, workspace)
    start = max(before_cursor.rfind(" "), before_cursor.rfind("\t")) + 1
    token = before_cursor[start:]
    if not token.startswith("@"):
        return None
    paths = path_candidates(workspace, token[1:])
    items = [Completion("@" + p) for p in paths if "@" + p != token]
    return CompletionRequest(start, token, items) if items else None


def _command_request(
    before_cursor: str, commands: CommandTable | None, workspace: Path
) -> CompletionRequest | None:
    """A command name being typed, or the argument of a command that has fixed ones."""
    name, space, rest = before_cursor[1:].partition(" ")
    if not space:
        table = command_table(workspace) if commands is None else commands
        found = command_candidates(name, table)
        items = [Completion(v, d) for v, d in found if v != before_cursor]
        return CompletionRequest(0, before_cursor, items) if items else None
    if not rest or any(c.isspace() for c in rest):
        return None  # an argument completes once its first letter is typed
    options = SUBCOMMANDS.get(name.lower(), ())
    items = [Completion(o) for o in options if o.startswith(rest) and o != rest]
    return CompletionRequest(len(before_cursor) - len(rest), rest, items) if items else None
