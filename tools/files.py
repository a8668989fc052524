"""File helpers shared by the file tools: text reading checks and atomic writes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from tools.base import ToolError

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


def read_text_exact(path: Path, shown: str) -> str:
    """Read a UTF-8 text file exactly as stored (line endings kept) for editing."""
    check_regular_file(path, shown)
    data = path.read_bytes()
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise ToolError(f"{shown} is a binary file (NUL bytes in the first 8 KiB); not editing it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not valid UTF-8 (byte {exc.start}); not editing it") from exc


def _new_file_mode() -> int:
    """The mode a new regular file gets under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically, keeping the original mode.

    The text goes to a temporary file in the same directory that is then renamed
    over the target, so readers see either the old or the new file, never half
    of one. On any failure the temporary file is removed and the original is
    untouched.
    """
    data = text.encode("utf-8")
    mode = path.stat().st_mode & 0o7777 if path.exists() else _new_file_mode()
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def count_lines(text: str) -> int:
    """Number of lines as an editor shows them (a final line without newline counts)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def write_text_or_fail(path: Path, text: str, shown: str) -> None:
    """Atomically write ``text`` to ``path``; turn failures into one clear ToolError."""
    try:
        atomic_write_text(path, text)
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"could not write {shown}: the text is not valid Unicode at character {exc.start}"
        ) from exc
    except OSError as exc:
        raise ToolError(f"could not write {shown}: {exc.strerror or exc}") from exc
