"""Opening a file an attachment reads: regular files only, and never a wait.

``@z.png`` may link to ``/dev/zero`` (endless bytes) and ``@shot.png`` may be a FIFO (an open
waits for a writer that never comes). So a file is opened with ``O_NONBLOCK`` (a FIFO opens at
once), the opened descriptor is checked with ``fstat`` (what was opened, not what the name
pointed at a moment before), and anything but a regular file is refused with what it is. The
size ``fstat`` gives is checked against a cap before reading, and reads stop at the cap.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(ValueError):
    """A file that is not a regular one; ``kind`` says what it is ("a FIFO (named pipe)")."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"{kind}, not a regular file")
        self.kind = kind


def file_kind(mode: int) -> str:
    """What a file of ``mode`` is, as a phrase ("a character device")."""
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


@contextlib.contextmanager
def open_regular(path: Path) -> Iterator[tuple[BinaryIO, int]]:
    """``path`` opened for reading and its size, when it is a regular file (symlinks
    followed); raises :class:`NotRegularFile` (without blocking) for anything else, OSError
    when it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno in (errno.ENXIO, errno.EISDIR):  # a socket; a directory somewhere
            with contextlib.suppress(OSError):
                raise NotRegularFile(file_kind(os.stat(path).st_mode)) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(file_kind(info.st_mode))
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle, info.st_size


def read_head(path: Path, limit: int) -> tuple[bytes, int]:
    """At most ``limit`` bytes from the start of regular file ``path``, and its size;
    raises like :func:`open_regular`."""
    with open_regular(path) as (handle, size):
        return handle.read(limit), size
