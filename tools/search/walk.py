"""Walking a directory tree for search tools, skipping tool and VCS directories."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})


def walk_files(
    root: Path,
    skip_dirs: frozenset[str] = SKIP_DIRS,
    stop: threading.Event | None = None,
) -> Iterator[Path]:
    """Yield regular files under ``root`` in a stable order, without following symlinks.

    Directories named in ``skip_dirs`` are not entered; the walk ends early once
    ``stop`` is set (used when the calling task is cancelled).
    """
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        if stop is not None and stop.is_set():
            return
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if not path.is_symlink() and path.is_file():
                yield path
