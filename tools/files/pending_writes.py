"""A journal of in-flight atomic writes, so a killed process leaves no temporary file behind.

An atomic write puts the new content in a temporary file next to the target (``os.replace``
needs the same filesystem) and renames it over the target. If lull is killed in between,
the temporary file would stay in the user's workspace for good. So before it is created
its path is recorded in lull's state directory (one small entry per write, named after the
writing process); the entry goes once the rename is done. On the next start
:func:`clean_stale` removes the temporary files of processes that no longer run.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

TEMP_SUFFIX = ".lull-tmp"
"""Every temporary file of an atomic write ends with this (nothing else is ever removed)."""


def _alive(pid: int) -> bool:
    """True if a process ``pid`` exists (it may belong to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def record(journal: Path | None, temp_path: Path) -> Path | None:
    """Note that this process is about to create ``temp_path``; the entry, or None when
    there is no journal or it cannot be written (the write goes on unrecorded)."""
    if journal is None:
        return None
    entry = journal / f"{os.getpid()}-{secrets.token_hex(8)}"
    try:
        journal.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(os.fsencode(temp_path))
    except OSError:
        return None
    return entry


def forget(entry: Path | None) -> None:
    """Drop a journal entry once its temporary file is renamed or removed."""
    if entry is not None:
        with contextlib.suppress(OSError):
            entry.unlink()


def _remove_temp(raw: bytes) -> Path | None:
    """Remove the temporary file an entry names, if it is still one; the path removed."""
    path = Path(os.fsdecode(raw))
    if not path.name.endswith(TEMP_SUFFIX) or not path.is_absolute():
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    try:
        path.unlink()
    except OSError:
        return None
    return path


def clean_stale(journal: Path) -> list[Path]:
    """Remove the temporary files that writers which no longer run left behind (call at
    start); the paths removed."""
    try:
        entries = sorted(journal.iterdir())
    except OSError:
        return []
    removed: list[Path] = []
    for entry in entries:
        pid_text = entry.name.split("-", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        try:
            raw = entry.read_bytes()
        except OSError:
            continue
        gone = _remove_temp(raw)
        if gone is not None:
            removed.append(gone)
        forget(entry)
    return removed
