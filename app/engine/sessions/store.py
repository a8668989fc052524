"""Session persistence: one append-only JSONL file per session, and finding it again.

Records: a ``session`` header, then ``message``, ``edit``, ``response``, ``environment``,
``tokens`` (exact token counts, so a resume does not count the history again) and
``rollback`` (a reply the guardrails threw away, never part of the transcript) lines in the
order they happened (written by :class:`lull.engine.sessions.writer.SessionWriter`, which
also holds the one-writer lock). What a file holds is a
:class:`~lull.engine.sessions.record.SessionRecord`; reading one back (skipping damaged lines,
repairing the pairing) is :mod:`lull.engine.sessions.load`. API keys are never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from pathlib import Path

from lull.engine.sessions.load import SessionNotFound, load_session
from lull.engine.sessions.record import SessionRecord
from lull.engine.sessions.writer import SessionWriter
from lull.model.text import json_line


class SessionStorageError(Exception):
    """Sessions cannot be written where they live (a read-only or unusable data directory);
    the message is one line naming the place and what to do."""


def workspace_key(workspace: Path) -> str:
    """A directory name for a workspace: readable tail plus a short hash."""
    text = str(workspace.resolve())
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[-48:] or "root"
    digest = hashlib.sha256(os.fsencode(text)).hexdigest()[:8]
    return f"{tail}-{digest}"


def storage_error(directory: Path, error: OSError) -> SessionStorageError:
    """A one-line message for a data directory lull cannot write sessions to."""
    reason = error.strerror or str(error)
    return SessionStorageError(
        f"cannot save sessions in {directory} ({reason}); make it writable, "
        "or set XDG_DATA_HOME to a writable directory"
    )


class SessionStore:
    """Where a workspace's sessions live, and how they are opened, found and forked."""

    def __init__(self, root: Path, workspace: Path) -> None:
        self.root = root
        self.workspace = workspace.resolve()
        self.dir = root / workspace_key(self.workspace)

    def path_for(self, session_id: str) -> Path:
        """The file of one session of this workspace."""
        return self.dir / f"{session_id}.jsonl"

    def list_sessions(self) -> list[Path]:
        """This workspace's session files, newest first."""
        return sorted(_session_files(self.dir), key=_mtime, reverse=True)

    def latest(self) -> Path:
        """The most recently written session of this workspace (a sub-agent's own session is
        not one to continue: it is skipped)."""
        sessions = [path for path in self.list_sessions() if not _is_child(path)]
        if not sessions:
            raise SessionNotFound(
                f"no saved session for {self.workspace}; start one with `lull` or `lull -p`"
            )
        return sessions[0]

    def find(self, session_id: str) -> Path:
        """A session by id or unique id prefix, in this workspace first, then anywhere.

        The id is literal text (no patterns); anything that is not a saved session's id
        raises :class:`SessionNotFound` with a one-line message.
        """
        wanted = session_id.strip()
        if not wanted:
            raise SessionNotFound("the session id is empty; `/resume` lists saved sessions")
        if "/" not in wanted and "\0" not in wanted and self.path_for(wanted).is_file():
            return self.path_for(wanted)
        for directories in ([self.dir], _subdirectories(self.root)):
            matches = sorted(
                path
                for directory in directories
                for path in _session_files(directory)
                if path.stem.startswith(wanted)
            )
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                names = ", ".join(p.stem for p in matches[:5])
                raise SessionNotFound(f"session id {wanted!r} is ambiguous: {names}")
        raise SessionNotFound(
            f"no saved session {wanted!r} (sessions are in {self.root}); "
            "use --continue for the latest one in this workspace"
        )

    def open_writer(self, record: SessionRecord) -> SessionWriter:
        """A locked writer for ``record``'s file, created with its header if new.

        Raises :class:`SessionStorageError` when the directory or file cannot be written and
        ``SessionLocked`` when another process writes the session.
        """
        path = self.path_for(record.id)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            writer = SessionWriter(path)
        except OSError as error:
            raise storage_error(self.dir, error) from error
        if os.stat(path).st_size == 0:
            writer.append(record.header())
        return writer

    def open_saved(self, path: Path) -> tuple[SessionRecord, SessionWriter]:
        """A saved session, loaded under its lock (so nobody appends while it loads).

        Raises ``SessionLocked``, :class:`SessionNotFound` for a file that is no session,
        and :class:`SessionStorageError` when it cannot be opened for writing.
        """
        try:
            writer = SessionWriter(path, create=False)
        except FileNotFoundError as error:
            raise SessionNotFound(f"session {path.stem} no longer exists ({path})") from error
        except OSError as error:
            raise storage_error(path.parent, error) from error
        try:
            record = load_session(path)
        except BaseException:
            writer.close()
            raise
        return record, writer

    def fork(self, path: Path, clock: float | None = None) -> Path:
        """Copy the session at ``path`` (its complete lines) into a new session of this
        workspace, whose header names the original; returns the new file.

        The source is only read, so a session another process is writing can be forked.
        """
        source = load_session(path)
        record = SessionRecord(
            id=str(uuid.uuid4()),
            workspace=str(self.workspace),
            created_at=time.time() if clock is None else clock,
            provider=source.provider,
            model=source.model,
            forked_from=source.id,
        )
        data = path.read_bytes()
        body = [line + b"\n" for line in data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]]
        header_at = next((i for i, line in enumerate(body) if _is_header(line)), -1)
        target = self.path_for(record.id)
        temporary = target.with_name(f".{target.name}.tmp")
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(json_line(record.header()) + b"".join(body[header_at + 1 :]))
            os.replace(temporary, target)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            raise storage_error(self.dir, error) from error
        return target


def _is_child(path: Path) -> bool:
    """Whether the session at ``path`` is a sub-agent's (its header names a parent)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(65536)
        header = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(header, dict) and bool(header.get("parent_id"))


def _is_header(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("type") == "session"


def _session_files(directory: Path) -> list[Path]:
    """The ``*.jsonl`` files directly in ``directory`` (none if it is missing)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    return [
        Path(entry.path)
        for entry in entries
        if entry.name.endswith(".jsonl") and not entry.name.startswith(".") and _is_file(entry)
    ]


def _subdirectories(directory: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(directory) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
