"""Input history kept across sessions, shared by the line mode and the TUI.

The file (``lull.settings.paths.history_path()``, in the platformdirs state dir) holds
one entry per line, oldest first. An entry that spans lines (or could be
mistaken for an escaped one because it starts with ``"``) is written as a JSON
string literal, so every line is still one entry. The file is capped: when it
grows past ``cap`` entries it is rewritten with the newest ``cap``.

A missing or unreadable file is an empty history and a failed write is
ignored (logged at debug level): history is a convenience, never a reason to
stop. Several lull processes may append at once; each entry is one ``write``.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger("lull.history")

DEFAULT_CAP = 1000


def encode_entry(entry: str) -> str:
    """One history line (without the newline) for ``entry``."""
    if "\n" in entry or "\r" in entry or entry.startswith('"'):
        return json.dumps(entry, ensure_ascii=False)
    return entry


def decode_line(line: str) -> str:
    """The entry a history line stands for (a JSON string literal, or the raw line)."""
    if line.startswith('"'):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            return line
        if isinstance(value, str):
            return value
    return line


class History:
    """The user's past inputs, oldest first, persisted in one file."""

    def __init__(self, path: Path | None = None, cap: int = DEFAULT_CAP) -> None:
        if path is None:
            from lull.settings.paths import history_path

            path = history_path()
        self.path = path
        self.cap = max(1, cap)
        self._entries: list[str] | None = None

    def entries(self) -> list[str]:
        """Every stored entry, oldest first (read from the file once)."""
        if self._entries is None:
            self._entries = self._read()
        return list(self._entries)

    def append(self, entry: str) -> None:
        """Remember ``entry`` (blank entries and a repeat of the last one are skipped)."""
        if not entry.strip():
            return
        entries = self.entries()
        if entries and entries[-1] == entry:
            return
        entries.append(entry)
        self._entries = entries
        if len(entries) > self.cap:
            self._entries = entries[-self.cap :]
            self._rewrite(self._entries)
        else:
            self._write_line(entry)

    def _read(self) -> list[str]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError) as error:
            if not isinstance(error, FileNotFoundError):
                log.debug("history %s unreadable, ignored: %s", self.path, error)
            return []
        entries = [decode_line(line) for line in text.splitlines() if line.strip()]
        return entries[-self.cap :]

    def _write_line(self, entry: str) -> None:
        line = (encode_entry(entry) + "\n").encode("utf-8")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as error:
            log.debug("history %s not written: %s", self.path, error)

    def _rewrite(self, entries: list[str]) -> None:
        text = "".join(encode_entry(e) + "\n" for e in entries)
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(text, encoding="utf-8")
            os.chmod(temporary, 0o600)
            os.replace(temporary, self.path)
        except OSError as error:
            log.debug("history %s not rewritten: %s", self.path, error)
