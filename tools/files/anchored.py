"""Reading and writing a checked path without following a symlink swapped in afterwards.

:func:`lull.tools.files.paths.resolve_in_workspace` checks a path; between that check and the write
a
process the model started could replace a directory on the way with a symlink to somewhere
outside the workspace. So the file tools do not reopen the path by name: the directory the
file lives in is opened once, component by component from the checked root, each with
``O_NOFOLLOW`` relative to the previous one (``openat``), and the file is read, created and
renamed relative to that directory. Before the final rename the directory is verified to
still be where the check saw it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from lull.tools.base import ToolError
from lull.tools.files.pending_writes import TEMP_SUFFIX, forget, record

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NAME_ROOM = 200  # bytes of the target's name kept in a temporary file's name
_PROC_FD = Path("/proc/self/fd")


def new_file_mode() -> int:
    """The mode a new regular file gets under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _changed(shown: str, where: Path) -> ToolError:
    """The error for a path that changed between the check and the write."""
    return ToolError(
        f"{shown}: {where} changed while it was being written (it is now a symlink or not a "
        "directory); nothing was written"
    )


class AnchoredDir:
    """The directory a checked file lives in, held open by descriptor.

    ``root`` is the checked (resolved) root the file lies under and ``directory`` the
    file's resolved parent; ``create`` makes missing directories on the way. Use it as a
    context manager; every operation takes a plain file name inside the directory.
    """

    def __init__(self, root: Path, directory: Path, shown: str, *, create: bool = False) -> None:
        self.directory = directory
        self.shown = shown
        self.fd = self._open(root, directory.relative_to(root).parts, create)

    def _open(self, root: Path, parts: tuple[str, ...], create: bool) -> int:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        where = root
        try:
            for part in parts:
                where = where / part
                next_fd = self._open_child(fd, part, where, create)
                os.close(fd)
                fd = next_fd
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _open_child(self, fd: int, part: str, where: Path, create: bool) -> int:
        """Open directory ``part`` under ``fd`` without following a symlink."""
        try:
            return os.open(part, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise ToolError(f"{self.shown}: directory {where} does not exist") from None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise _changed(self.shown, where) from None
            raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o777, dir_fd=fd)
        try:
            return os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise _changed(self.shown, where) from None
            raise

    def __enter__(self) -> AnchoredDir:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        os.close(self.fd)

    def lstat(self, name: str) -> os.stat_result | None:
        """The entry ``name`` itself (a symlink is not followed), or None if it is missing."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def read_bytes(self, name: str) -> bytes:
        """The content of regular file ``name`` (a symlink there is refused)."""
        with self.open_file(name) as handle:
            return handle.read()

    def open_file(self, name: str) -> BinaryIO:
        """Regular file ``name`` opened for reading (a symlink there is refused, and so is
        anything but a regular file, without waiting on a FIFO)."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(name, flags, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _changed(self.shown, self.directory / name) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolError(f"{self.shown} is not a regular file")
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise

    def remove(self, name: str) -> bool:
        """Delete regular file ``name`` (False: it was not there); anything else there (a
        symlink, a directory) is refused, and so is a directory moved since the check."""
        current = self.lstat(name)
        if current is None:
            return False
        if not stat.S_ISREG(current.st_mode):
            raise _changed(self.shown, self.directory / name)
        self.verify()
        try:
            os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            return False
        return True

    def verify(self) -> None:
        """Raise if the open directory is no longer at the path that was checked (moved)."""
        try:
            now = Path(os.readlink(_PROC_FD / str(self.fd)))
        except OSError:
            now = None
        if now is not None:
            if now != self.directory:
                raise _changed(self.shown, self.directory)
            return
        here = os.fstat(self.fd)
        try:
            there = os.stat(self.directory, follow_symlinks=False)
        except OSError:
            raise _changed(self.shown, self.directory) from None
        if (here.st_dev, here.st_ino) != (there.st_dev, there.st_ino):
            raise _changed(self.shown, self.directory)

    def replace(self, name: str, data: bytes, journal: Path | None = None) -> None:
        """Atomically replace (or create) regular file ``name`` with ``data``, keeping an
        existing file's mode; the temporary file is recorded in ``journal`` while it exists."""
        self.replace_with(name, lambda handle: handle.write(data), journal)

    def replace_with(
        self, name: str, write: Callable[[BinaryIO], object], journal: Path | None = None
    ) -> None:
        """Like :meth:`replace`, the new content written by ``write`` (a large one a chunk at
        a time) into the temporary file."""
        current = self.lstat(name)
        if current is not None and stat.S_ISDIR(current.st_mode):
            raise ToolError(f"{self.shown} is a directory; give a file path to write")
        if current is not None and not stat.S_ISREG(current.st_mode):
            raise _changed(self.shown, self.directory / name)
        mode = stat.S_IMODE(current.st_mode) if current is not None else new_file_mode()
        stem = name if len(os.fsencode(name)) <= _NAME_ROOM else "file"
        temp = f".{stem}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        entry = record(journal, self.directory / temp)
        created = False
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(temp, flags, 0o600, dir_fd=self.fd)
            created = True
            with os.fdopen(fd, "wb") as handle:
                write(handle)
                handle.flush()
                os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            self.verify()
            os.replace(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            created = False
        finally:
            if created:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=self.fd)
            forget(entry)
