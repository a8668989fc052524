"""Appending to one session file: one writer per session, whole lines, no write error fatal.

- **One writer.** Opening takes an exclusive advisory lock (``flock``) on the file, held
  until :meth:`SessionWriter.close` or the process ends (a crash or a kill releases it too).
  A writer dropped without ``close`` is closed by its finalizer when it is collected: the
  descriptor and the lock are released, records still waiting in memory are lost (as in a
  crash), and a :class:`ResourceWarning` says so, as for any file left open.
  A second process gets :class:`SessionLocked`, naming the holder's pid when the system says.
- **Whole lines.** Each record is one JSON line (:func:`lull.model.text.json_line`: any string
  survives). A write that fails part-way is cut back to the last whole line; if even that
  fails, the next line starts on a fresh line, so a later load skips only the torn piece.
- **Write errors** (a full disk, a read-only or vanished file system) never stop the
  conversation: the records wait in memory, in order, and are written as soon as a write
  succeeds again (the next append or :meth:`SessionWriter.close`). :meth:`take_notice` tells
  the front end once when saving stops and once when it works again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import warnings
import weakref
from pathlib import Path
from typing import Any

from lull.model.edits import ContextEdit, edit_to_dict
from lull.model.events import Notice
from lull.model.messages import Message, message_to_dict
from lull.model.provider import Usage
from lull.model.rollbacks import RolledBack, rollback_to_dict
from lull.model.text import json_line

TAIL_CHUNK = 65536
LOCKS_TABLE = Path("/proc/locks")


class SessionLocked(Exception):
    """Another lull process is writing this session (``pid`` when known)."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.session_id = path.stem
        self.pid = pid
        holder = f"another lull (pid {pid})" if pid else "another lull process"
        super().__init__(f"session {self.session_id} is in use by {holder}")


class SessionWriter:
    """Appends whole JSON lines to one session file, holding its lock.

    Raises :class:`SessionLocked` if another process holds the file, and ``OSError`` if it
    cannot be opened for writing at all (a read-only or missing directory; a missing file
    unless ``create``).
    """

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = path
        flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT if create else 0)
        fd = os.open(path, flags, 0o600)
        try:
            _lock(fd, path)
            _drop_torn_tail(path, fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self._release = weakref.finalize(self, _release_unclosed, fd, path)
        self._release.atexit = False  # at exit the system releases both anyway
        self._pending: list[bytes] = []
        self._torn = False  # a failed write may have left a partial line at the end
        self._failure: OSError | None = None
        self._notices: list[Notice] = []

    # --- writing ------------------------------------------------------------------------------

    def append(self, record: dict[str, Any]) -> bool:
        """Write one record as a single line; False if it (or an earlier one) waits in memory."""
        self._pending.append(json_line(record))
        return self._flush()

    def message(self, message: Message) -> bool:
        """Record a transcript message."""
        return self.append({"type": "message", "message": message_to_dict(message)})

    def rollback(self, rolled: RolledBack) -> bool:
        """Record a rolled-back reply (never part of the transcript)."""
        return self.append({"type": "rollback", **rollback_to_dict(rolled)})

    def edit(self, edit: ContextEdit) -> bool:
        """Record a context edit."""
        return self.append({"type": "edit", "edit": edit_to_dict(edit)})

    def response(self, at: float, usage: Usage, model: str, local_prompt: int = 0) -> bool:
        """Record a completed API response (the idle clock, usage, the local estimate)."""
        record: dict[str, Any] = {"type": "response", "at": at, "usage": usage.to_dict()}
        if not usage.reported:
            record["usage_reported"] = False
        record["model"] = model
        if local_prompt:
            record["local_prompt"] = local_prompt
        return self.append(record)

    def tokens(
        self, tokenizer: str, messages: dict[str, int], results: dict[str, list[int]]
    ) -> bool:
        """Record exact token counts (per message id and per tool-call id) made by ``tokenizer``."""
        record: dict[str, Any] = {"type": "tokens", "tokenizer": tokenizer, "messages": messages}
        if results:
            record["results"] = results
        return self.append(record)

    def tool_times(self, seconds: dict[str, float]) -> bool:
        """Record how long tool calls ran (call id -> wall seconds)."""
        return self.append({"type": "tool_times", "seconds": dict(seconds)})

    def tools_loaded(self, names: tuple[str, ...]) -> bool:
        """Record deferred tools the session loaded (they are offered in full from now on)."""
        return self.append({"type": "tools_loaded", "names": list(names)})

    def environment(self, text: str) -> bool:
        """Record the environment block the session's requests use from now on."""
        return self.append({"type": "environment", "text": text})

    @property
    def unsaved(self) -> int:
        """How many records wait in memory because writing failed."""
        return len(self._pending)

    def take_notice(self) -> Notice | None:
        """The oldest change in saving (it failed; it works again) not yet told, else None."""
        return self._notices.pop(0) if self._notices else None

    def close(self) -> str | None:
        """Write what waits, flush to disk, close and unlock; returns why records were lost
        (None when everything was saved)."""
        if self._fd < 0:
            return None
        self._flush()
        with contextlib.suppress(OSError):
            os.fsync(self._fd)
        lost = len(self._pending)
        self._release.detach()
        os.close(self._fd)  # releases the lock
        self._fd = -1
        if not lost:
            return None
        reason = _reason(self._failure)
        return (
            f"{lost} record(s) of session {self.path.stem} could not be saved to {self.path} "
            f"({reason}); it resumes from its last saved message"
        )

    def _flush(self) -> bool:
        while self._pending:
            data = self._pending[0]
            if self._torn:
                data = b"\n" + data
            try:
                self._write_all(data)
            except OSError as error:
                self._failed(error)
                return False
            self._pending.pop(0)
            self._torn = False
        if self._failure is not None:
            self._failure = None
            text = f"saving the session to {self.path} works again; nothing was lost"
            self._notices.append(Notice("info", text))
        return True

    def _write_all(self, data: bytes) -> None:
        """Write ``data`` completely, or cut the file back to where it was and raise."""
        if self._fd < 0:
            raise OSError(errno.EBADF, "the session file is closed")
        start = os.fstat(self._fd).st_size
        written = 0
        try:
            while written < len(data):
                count = os.write(self._fd, data[written:])
                if count <= 0:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                written += count
        except OSError:
            if written:
                self._cut_back(start)
            raise

    def _cut_back(self, size: int) -> None:
        try:
            os.ftruncate(self._fd, size)
        except OSError:
            self._torn = True

    def _failed(self, error: OSError) -> None:
        if self._failure is None:
            text = (
                f"could not save the session to {self.path} ({_reason(error)}); the "
                "conversation goes on in memory and is saved as soon as writing works again"
            )
            self._notices.append(Notice("warning", text))
        self._failure = error


def _release_unclosed(fd: int, path: Path) -> None:
    """The finalizer of a writer dropped without ``close``: release its descriptor and lock."""
    os.close(fd)
    warnings.warn(f"session file {path} was not closed", ResourceWarning, stacklevel=1)


def _reason(error: OSError | None) -> str:
    if error is None:
        return "unknown error"
    return error.strerror or str(error)


def _lock(fd: int, path: Path) -> None:
    """Take the session's exclusive lock, or raise SessionLocked."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionLocked(path, _lock_holder(fd)) from None
    except OSError as error:
        if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            return  # a file system without locks: one writer cannot be enforced there
        raise


def _lock_holder(fd: int) -> int | None:
    """The pid holding a flock on ``fd``'s file, from ``/proc/locks`` (Linux), else None."""
    stat = os.fstat(fd)
    key = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    try:
        table = LOCKS_TABLE.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in table.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2146479 0 EOF"; waiters have "->" after "1:"
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == key:
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def _drop_torn_tail(path: Path, fd: int) -> None:
    """Cut a partial last line (left by a crash) so new lines start clean."""
    size = os.fstat(fd).st_size
    if size == 0:
        return
    with path.open("rb") as handle:
        end = size
        while end > 0:
            start = max(0, end - TAIL_CHUNK)
            handle.seek(start)
            chunk = handle.read(end - start)
            if end == size and chunk.endswith(b"\n"):
                return
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                os.ftruncate(fd, start + newline + 1)
                return
            end = start
    os.ftruncate(fd, 0)
