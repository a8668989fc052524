"""Checkpoints for shell commands in a git work tree (``auto-edit`` and ``yolo`` modes, where
no one approves each command).

Before the command, ``git status`` names the files that differ from ``HEAD`` (modified and
untracked, not ignored); their content goes into the session's checkpoint store. A file
that was clean is already kept by git. After the command, ``git status`` again: every file
that was dirty before or is dirty now and whose content changed becomes a recorded change
(its content before: the stored copy, ``HEAD``'s blob, or "did not exist"), so ``/undo`` and
``/rewind`` put it back like a ``write_file`` change. Ignored files, files a command changes
while ``HEAD`` moves (a checkout), and work trees with more than :data:`MAX_DIRTY` dirty files
or dirty files larger than :data:`MAX_FILE_BYTES` are not tracked (said in the debug log).
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from lull.engine.checkpoints.files import SessionCheckpoints

log = logging.getLogger("lull.checkpoints")

MAX_DIRTY = 2000
MAX_FILE_BYTES = 20 * 1024 * 1024
GIT_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class GitSnapshot:
    """The dirty files of a work tree before a command: path -> stored hash (None: the
    path is listed but has no file, e.g. deleted)."""

    root: Path
    dirty: dict[str, str | None]


async def _git(root: Path, *args: str) -> bytes | None:
    """``git args`` in ``root``: stdout, or None when it fails (no git, not a work tree)."""
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *args,
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), GIT_TIMEOUT_SECONDS)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None
    return out if proc.returncode == 0 else None


async def _dirty_paths(root: Path) -> list[str] | None:
    """Paths (relative to ``root``) that differ from ``HEAD`` or are untracked."""
    out = await _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    if out is None:
        return None
    fields = out.split(b"\0")
    paths: list[str] = []
    index = 0
    while index < len(fields):
        entry = fields[index]
        index += 1
        if len(entry) < 4:
            continue
        paths.append(os.fsdecode(entry[3:]))
        if entry[:1] in (b"R", b"C"):  # a rename or copy names its source next
            index += 1
    return paths


async def snapshot(workspace: Path, checkpoints: SessionCheckpoints) -> GitSnapshot | None:
    """Store the work tree's dirty files before a shell command; None outside a git work
    tree or when there is too much to keep."""
    top = await _git(workspace, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    root = Path(os.fsdecode(top.rstrip(b"\n"))).resolve()  # restores are anchored here
    paths = await _dirty_paths(root)
    if paths is None or len(paths) > MAX_DIRTY:
        log.info("shell changes not tracked in %s: %s dirty files", root, len(paths or ()))
        return None
    dirty: dict[str, str | None] = {}
    for relative in paths:
        path = root / relative
        try:
            if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
                log.info("shell changes not tracked: %s is over %d bytes", path, MAX_FILE_BYTES)
                return None
            dirty[relative] = checkpoints.store_file(path)
        except OSError:
            dirty[relative] = None
    return GitSnapshot(root, dirty)


async def record_changes(
    before: GitSnapshot, checkpoints: SessionCheckpoints, call_id: str
) -> list[Path]:
    """Record every file the command changed (see the module text); the paths."""
    now = await _dirty_paths(before.root)
    if now is None:
        return []
    changed: list[Path] = []
    for relative in dict.fromkeys([*before.dirty, *now]):
        path = before.root / relative
        if relative in before.dirty:
            previous = before.dirty[relative]
        else:
            blob = await _git(before.root, "cat-file", "blob", f"HEAD:{relative}")
            previous = None if blob is None else checkpoints.store(blob)
        if checkpoints.holds(path, previous):
            continue
        checkpoints.record(call_id, path, previous, before.root)
        changed.append(path)
    return changed
