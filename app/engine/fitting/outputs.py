"""Full texts of truncated tool results, saved where ``read_file`` can read them back."""

from __future__ import annotations

import re
from pathlib import Path

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def full_text_path(out_dir: Path, call_id: str) -> Path:
    """Where the full text of call ``call_id``'s result is saved."""
    return out_dir / f"{_UNSAFE_NAME.sub('_', call_id) or 'result'}.full.txt"


def save_full_text(path: Path, text: str) -> str | None:
    """Write ``text`` to ``path`` once; returns why it failed, or None."""
    try:
        if path.is_file() and path.stat().st_size == len(text.encode("utf-8", "replace")):
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="replace")
    except OSError as error:
        return error.strerror or str(error)
    return None


class FullTextStore:
    """Saves full texts under one directory (``context.toolOutput``'s truncation marker
    names the file)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir

    def save(self, call_id: str, text: str) -> str:
        """Keep ``text`` for ``call_id``; returns where it is, in the marker's words."""
        path = full_text_path(self.out_dir, call_id)
        failure = save_full_text(path, text)
        if failure is None:
            return f"the full text is in {path}"
        return f"the full text could not be saved ({failure})"
