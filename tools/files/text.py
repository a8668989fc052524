"""File helpers shared by the file tools: text reading checks and atomic writes."""

from __future__ import annotations

from pathlib import Path

from lull.tools.base import ToolError
from lull.tools.files.anchored import AnchoredDir

BINARY_SNIFF_BYTES = 8192


def looks_binary(path: Path) -> bool:
    """True if the file has a NUL byte in its first 8 KiB (how git and grep decide)."""
    with path.open("rb") as handle:
        return b"\0" in handle.read(BINARY_SNIFF_BYTES)


def check_regular_file(path: Path, shown: str) -> None:
    """Raise a clear ToolError unless ``path`` is an existing regular file."""
    if not path.exists():
        raise ToolError(f"file not found: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file; use list_directory to see it")
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file")


def _anchor(path: Path, root: Path | None) -> tuple[Path, Path]:
    """(root, directory) for :class:`AnchoredDir`: without a checked root, the file's
    resolved directory is its own root."""
    if root is None:
        parent = path.parent.resolve()
        return parent, parent
    return root, path.parent


def read_text_exact(path: Path, shown: str, root: Path | None = None) -> str:
    """Read a UTF-8 text file exactly as stored (line endings kept) for editing.

    With ``root`` (the checked root ``path`` lies under) the file is opened relative to
    its directory without following symlinks (see :mod:`lull.tools.files.anchored`).
    """
    check_regular_file(path, shown)
    try:
        with AnchoredDir(*_anchor(path, root), shown) as directory:
            data = directory.read_bytes(path.name)
    except OSError as exc:
        raise ToolError(f"could not read {shown}: {exc.strerror or exc}") from exc
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise ToolError(f"{shown} is a binary file (NUL bytes in the first 8 KiB); not editing it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not valid UTF-8 (byte {exc.start}); not editing it") from exc


def atomic_write_text(
    path: Path,
    text: str,
    *,
    root: Path | None = None,
    journal: Path | None = None,
    create_dirs: bool = False,
    shown: str | None = None,
) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically, keeping the original mode.

    The text goes to a temporary file (``*.lull-tmp``, recorded in ``journal`` while it
    exists) in the same directory that is then renamed over the target, so readers see
    either the old or the new file, never half of one. On any failure the temporary file
    is removed and the original is untouched. ``root`` is the checked root ``path`` lies
    under: the directories from there on are opened without following symlinks
    (``create_dirs`` makes missing ones), so a symlink swapped in after the check cannot
    lead the write outside. ``shown`` is how messages name the file.
    """
    data = text.encode("utf-8")
    name = shown or str(path)
    with AnchoredDir(*_anchor(path, root), name, create=create_dirs) as directory:
        directory.replace(path.name, data, journal)


def count_lines(text: str) -> int:
    """Number of lines as an editor shows them (a final line without newline counts)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def write_text_or_fail(
    path: Path,
    text: str,
    shown: str,
    *,
    root: Path | None = None,
    journal: Path | None = None,
    create_dirs: bool = False,
) -> None:
    """Atomically write ``text`` to ``path`` (see :func:`atomic_write_text`); turn
    failures into one clear ToolError naming ``shown``."""
    try:
        atomic_write_text(
            path, text, root=root, journal=journal, create_dirs=create_dirs, shown=shown
        )
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"could not write {shown}: the text is not valid Unicode at character {exc.start}"
        ) from exc
    except OSError as exc:
        raise ToolError(f"could not write {shown}: {exc.strerror or exc}") from exc
