"""Completion of ``/`` commands and ``@path`` mentions for the line mode's prompt.

The pure functions are shared by the prompt-toolkit completer and the tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from app.commands import command_names

MAX_PATHS = 50
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules"})
SUBCOMMANDS = {"context": ("restore",)}


def command_completions(text: str) -> list[tuple[str, str]]:
    """(completion, description) pairs for a line being typed as a command."""
    if not text.startswith("/"):
        return []
    name, space, rest = text[1:].partition(" ")
    if not space:
        return [
            (f"/{c.name}", c.summary) for c in command_names() if c.name.startswith(name.lower())
        ]
    options = SUBCOMMANDS.get(name.lower(), ())
    return [(o, "") for o in options if o.startswith(rest) and " " not in rest]


def path_completions(workspace: Path, partial: str) -> list[str]:
    """Paths (relative as typed) that complete ``partial``; directories end with ``/``."""
    head, _, prefix = partial.rpartition("/")
    base = Path(head).expanduser() if head else Path()
    directory = base if base.is_absolute() else workspace / base
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return []
    found: list[str] = []
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        if entry.name.startswith(".") and not prefix.startswith("."):
            continue
        is_dir = entry.is_dir()
        if is_dir and entry.name in SKIPPED_DIRS:
            continue
        shown = f"{head}/{entry.name}" if head else entry.name
        found.append(shown + "/" if is_dir else shown)
        if len(found) >= MAX_PATHS:
            break
    return found


class LineCompleter(Completer):
    """Completes commands at the start of the input and ``@paths`` anywhere."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """Completions for the text before the cursor."""
        before = document.text_before_cursor
        if before.startswith("/") and "\n" not in before:
            yield from self._commands(before)
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            for path in path_completions(self.workspace, word[1:]):
                yield Completion(path, start_position=-(len(word) - 1))

    def _commands(self, before: str) -> Iterator[Completion]:
        _, space, rest = before.partition(" ")
        replace = len(rest) if space else len(before)
        for text, meta in command_completions(before):
            yield Completion(text, start_position=-replace, display_meta=meta)
