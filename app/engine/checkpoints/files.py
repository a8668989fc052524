"""Checkpoints: what files held before lull changed them, so ``/undo`` and ``/rewind`` can put
them back.

Before a file-changing tool call (``write_file``, ``edit``) runs, the file's bytes (or the fact
that it did not exist) are stored content-addressed under the data directory, one directory
per session (``<data>/checkpoints/<workspace>/<session id>/``: ``objects/<sha256>`` and
``log.jsonl``), never in the user's repository. Files are copied and hashed a chunk at a time
(a large one is never held in memory); a file that is there but cannot be read is not
recorded, and the tool runner says so. After the call the new content's hash is
recorded too, so a restore can tell when a file was changed outside lull since (and refuses,
naming the file, unless forced). Shell commands' changes are not tracked.

A restore is anchored like a write (:mod:`lull.tools.files.anchored`): each change records the
checked root its file lay under (the workspace, an allowed path, the git work tree), and the
file is hashed, deleted or put back relative to directories opened from that root without
following a symlink. A path that now leads elsewhere (a directory on the way swapped for a
symlink to somewhere outside) is not touched: the report names it and where it leads, and the
other files are restored.

Every change belongs to the user prompt (turn) it happened in; ``/undo`` restores the last
turn that changed files, ``/rewind`` every turn from a chosen prompt on. Undone changes are
marked in the log (nothing is deleted), a session's checkpoints are removed with it
(:func:`prune`), and a fork gets a copy of them (:meth:`CheckpointStore.fork`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Literal

from lull.tools.base import ToolError
from lull.tools.files.anchored import AnchoredDir

log = logging.getLogger("lull.checkpoints")

LOG_NAME = "log.jsonl"
RestoreAction = Literal["restored", "deleted", "recreated"]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file one tool call changed: its hash before (None: it did not exist) and after
    (None: it does not exist; ``finished`` False: the call never reported back)."""

    id: str
    turn: int
    prompt: str
    call_id: str
    path: str
    before: str | None
    after: str | None = None
    finished: bool = False
    root: str | None = None
    """The checked root the file lay under (restores are anchored there; None: ``/``)."""


@dataclass
class RestoreReport:
    """What a restore did (``changed``: path and action) or, refused, the files changed
    outside lull since (``conflicts``); ``escaped``: the files left alone because their path
    now leads elsewhere (path, where it leads)."""

    changed: list[tuple[str, RestoreAction]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    escaped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        """True when nothing was restored because of outside changes."""
        return bool(self.conflicts) and not self.changed


CHUNK_BYTES = 1 << 20
"""Files are hashed and copied this much at a time: a large file is never held in memory."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _root(change: FileChange) -> Path:
    """Where a change's restore is anchored."""
    return Path(change.root) if change.root else Path(Path(change.path).anchor or os.sep)


def _leads(path: Path, root: Path) -> str:
    """Where ``path`` leads now that a symlink is on its way, as a phrase."""
    try:
        target = path.resolve()
    except (OSError, RuntimeError):
        return f"now goes through a symlink that cannot be resolved (under {root})"
    outside = "" if target.is_relative_to(root) else f", outside the workspace {root}"
    return f"now leads to {target}{outside} (a symlink on the way)"


def leads_elsewhere(change: FileChange) -> str | None:
    """Why a change's file may not be touched: its root or a directory (or the file) on the
    way is now a symlink; None when the path is as it was (missing parts are fine)."""
    root, path = _root(change), Path(change.path)
    if not path.is_relative_to(root):
        return f"is not under {root}, where it was recorded"
    try:
        if root.resolve(strict=True) != root:
            return _leads(path, root)
    except (OSError, RuntimeError):
        return None  # the root is gone: a restore fails with its own message
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        try:
            info = os.lstat(current)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            return _leads(path, root)
    return None


def _anchored_digest(path: Path, root: Path) -> str | None:
    """The hash of regular file ``path`` opened from ``root`` without following a symlink;
    None when there is none (missing, not a regular file, a symlink on the way)."""
    try:
        with AnchoredDir(root, path.parent, str(path)) as directory:
            if directory.lstat(path.name) is None:
                return None
            digest = hashlib.sha256()
            with directory.open_file(path.name) as handle:
                while chunk := handle.read(CHUNK_BYTES):
                    digest.update(chunk)
            return digest.hexdigest()
    except (ToolError, OSError, ValueError):
        return None


def _file_digest(path: Path) -> str | None:
    """The hash of a regular file's bytes, or None when there is none (or it cannot be
    read)."""
    try:
        if not path.is_file():
            return None
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None


class SessionCheckpoints:
    """One session's checkpoints: the object store and the change log."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.turn = 0
        self.prompt = ""
        self._changes: dict[str, FileChange] = {}
        self._undone: set[str] = set()
        self._load()

    # --- recording -------------------------------------------------------------------------

    def begin_turn(self, turn: int, prompt: str) -> None:
        """Changes from now on belong to user prompt number ``turn`` (message id ``prompt``)."""
        self.turn, self.prompt = turn, prompt

    def capture(self, call_id: str, path: Path, root: Path | None = None) -> str:
        """Store ``path``'s content before a call changes it; returns the change's id.
        ``root`` is the checked root the (resolved) path lies under, where a restore is
        anchored (None: ``/``). Raises OSError when a file is there but cannot be read or
        stored (it is not recorded)."""
        return self._begin(call_id, path, self.store_file(path), root)

    def record(
        self, call_id: str, path: Path, before: str | None, root: Path | None = None
    ) -> None:
        """A change found after the call (a shell command's): ``before`` is the stored
        content's hash (:meth:`store`), None when the file did not exist; ``root`` as for
        :meth:`capture`."""
        self.finish(self._begin(call_id, path, before, root))

    def _begin(self, call_id: str, path: Path, before: str | None, root: Path | None) -> str:
        change = FileChange(
            f"{call_id}:{len(self._changes)}",
            self.turn,
            self.prompt,
            call_id,
            str(path),
            before,
            root=None if root is None else str(root),
        )
        self._append({"kind": "change", **_as_record(change)})  # on disk first
        self._changes[change.id] = change
        return change.id

    def finish(self, change_id: str) -> None:
        """Record what the file holds after the call (for the outside-change check)."""
        change = self._changes.get(change_id)
        if change is None:
            return
        after = _anchored_digest(Path(change.path), _root(change))
        self._changes[change_id] = replace(change, after=after, finished=True)
        self._append({"kind": "after", "id": change_id, "after": after})

    # --- reading ---------------------------------------------------------------------------

    def changes(self) -> list[FileChange]:
        """The changes not undone yet, oldest first."""
        return [c for c in self._changes.values() if c.id not in self._undone]

    def turns(self) -> list[int]:
        """The turns that changed files (and are not undone)."""
        return sorted({c.turn for c in self.changes()})

    def size(self) -> tuple[int, int]:
        """How many changes are kept, and the bytes of the stored contents."""
        objects = self.directory / "objects"
        total = 0
        with contextlib.suppress(OSError):
            total = sum(entry.stat().st_size for entry in os.scandir(objects))
        return len(self.changes()), total

    # --- restoring -------------------------------------------------------------------------

    def undo_last(self, *, force: bool = False) -> RestoreReport:
        """Put back the files the last turn that changed any changed."""
        turns = self.turns()
        if not turns:
            return RestoreReport()
        return self.restore([c for c in self.changes() if c.turn == turns[-1]], force=force)

    def rewind(self, turn: int, *, force: bool = False) -> RestoreReport:
        """Put back the files every turn from ``turn`` on changed."""
        return self.restore([c for c in self.changes() if c.turn >= turn], force=force)

    def restore(self, changes: Sequence[FileChange], *, force: bool = False) -> RestoreReport:
        """Each file of ``changes`` back to its content before the first of them; refused
        (nothing touched) when one was changed outside lull since, unless ``force``. A file
        whose path now leads elsewhere is left alone and named (``escaped``); the others are
        restored, and all of ``changes`` count as undone."""
        first: dict[str, FileChange] = {}
        last: dict[str, FileChange] = {}
        for change in changes:
            first.setdefault(change.path, change)
            last[change.path] = change
        report = RestoreReport()
        for path, change in last.items():
            elsewhere = leads_elsewhere(change)
            if elsewhere is not None:
                report.escaped.append((path, elsewhere))
                continue
            now = _anchored_digest(Path(path), _root(change))
            if not change.finished or now != change.after:
                report.conflicts.append(path)
        if report.conflicts and not force:
            return report
        escaped = {path for path, _ in report.escaped}
        for path, change in first.items():
            if path in escaped:
                continue
            try:
                report.changed.append((path, self._put_back(change)))
            except ToolError as error:  # a symlink swapped in since the check above
                report.escaped.append((path, leads_elsewhere(change) or str(error)))
        self._undone.update(c.id for c in changes)
        self._append({"kind": "undone", "ids": [c.id for c in changes]})
        return report

    def _put_back(self, change: FileChange) -> RestoreAction:
        """The file of ``change`` back to its content before it, anchored at its root (a
        symlink on the way raises ToolError and nothing is touched)."""
        path, root = Path(change.path), _root(change)
        if change.before is None:
            if not os.path.lexists(path.parent):
                return "deleted"  # its directory is gone too
            with AnchoredDir(root, path.parent, str(path)) as directory:
                directory.remove(path.name)
            return "deleted"
        import shutil  # here: restoring is rare, and lull starts faster without it

        kept_path = self.directory / "objects" / change.before
        with (
            AnchoredDir(root, path.parent, str(path), create=True) as directory,
            kept_path.open("rb") as kept,
        ):
            existed = directory.lstat(path.name) is not None
            directory.replace_with(
                path.name, lambda out: shutil.copyfileobj(kept, out, CHUNK_BYTES)
            )
        return "restored" if existed else "recreated"

    # --- storage ---------------------------------------------------------------------------

    def holds(self, path: Path, digest: str | None) -> bool:
        """Whether ``path`` holds the content ``digest`` names (None: it does not exist)."""
        return _file_digest(path) == digest

    def store_file(self, path: Path) -> str | None:
        """Keep a regular file's bytes in the object store, copied a chunk at a time; their
        hash, or None when there is no regular file. Raises OSError when it cannot be read or
        stored."""
        if not path.is_file():
            return None
        digest = hashlib.sha256()

        def copy(out: BinaryIO) -> None:
            with path.open("rb") as source:
                while chunk := source.read(CHUNK_BYTES):
                    digest.update(chunk)
                    out.write(chunk)

        return self._keep(copy, lambda: digest.hexdigest())

    def store(self, data: bytes) -> str:
        """Keep ``data`` in the object store; its hash."""
        digest = _digest(data)
        if (self.directory / "objects" / digest).exists():
            return digest
        return self._keep(lambda out: out.write(data), lambda: digest)

    def _keep(self, write: Callable[[BinaryIO], object], name: Callable[[], str]) -> str:
        """Write an object to a temporary file of the store, then move it to its ``name()``
        (its hash, known once written) unless the store holds it already."""
        objects = self.directory / "objects"
        objects.mkdir(parents=True, exist_ok=True)
        temporary = objects / f"{os.urandom(8).hex()}.tmp"
        try:
            with temporary.open("xb") as out:
                write(out)
            target = objects / name()
            if target.exists():
                temporary.unlink()
            else:
                os.replace(temporary, target)
            return target.name
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise

    def _append(self, record: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        with (self.directory / LOG_NAME).open("a", encoding="ascii") as out:
            out.write(json.dumps(record) + "\n")  # ASCII: any path survives as \\u escapes

    def _load(self) -> None:
        try:
            lines = (self.directory / LOG_NAME).read_text("ascii", errors="replace").splitlines()
        except OSError:
            return
        for number, line in enumerate(lines, 1):
            try:
                self._take(json.loads(line))
            except (ValueError, KeyError, TypeError):
                log.warning("%s line %d: not a checkpoint record; skipped", LOG_NAME, number)

    def _take(self, record: dict[str, Any]) -> None:
        match record["kind"]:
            case "change":
                change = FileChange(
                    str(record["id"]),
                    int(record["turn"]),
                    str(record["prompt"]),
                    str(record["call_id"]),
                    str(record["path"]),
                    record["before"],
                    root=record.get("root"),
                )
                self._changes[change.id] = change
                self.turn = max(self.turn, change.turn)
            case "after":
                found = self._changes[str(record["id"])]
                self._changes[found.id] = replace(found, after=record["after"], finished=True)
            case "undone":
                self._undone.update(str(i) for i in record["ids"])


def _as_record(change: FileChange) -> dict[str, Any]:
    return {
        "id": change.id,
        "turn": change.turn,
        "prompt": change.prompt,
        "call_id": change.call_id,
        "path": change.path,
        "before": change.before,
        "root": change.root,
    }


class CheckpointStore:
    """The checkpoints of one workspace's sessions (``root``: under the data directory)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._open: dict[str, SessionCheckpoints] = {}

    def session(self, session_id: str) -> SessionCheckpoints:
        """The checkpoints of ``session_id`` (loaded once, kept across resumes)."""
        if session_id not in self._open:
            self._open[session_id] = SessionCheckpoints(self.root / session_id)
        return self._open[session_id]

    def fork(self, source_id: str, target_id: str) -> None:
        """Give ``target_id``, a copy of session ``source_id`` (``--fork-session``), the
        source's checkpoints, so ``/undo`` and ``/rewind`` reach back past the fork. The log
        is copied first (each session appends to its own), then the stored contents, which
        never change, are linked where the file system allows: everything the copied log
        names was stored before it was logged. A failure leaves the fork without them."""
        source, target = self.root / source_id, self.root / target_id
        if not (source / LOG_NAME).is_file() or target.exists() or target_id in self._open:
            return
        import shutil

        try:
            (target / "objects").mkdir(parents=True)
            shutil.copyfile(source / LOG_NAME, target / f"{LOG_NAME}.tmp")
            with contextlib.suppress(FileNotFoundError):
                for entry in os.scandir(source / "objects"):
                    if not entry.name.endswith(".tmp"):
                        _link_or_copy(Path(entry.path), target / "objects" / entry.name)
            os.replace(target / f"{LOG_NAME}.tmp", target / LOG_NAME)
        except OSError as error:
            log.warning("the checkpoints of %s were not copied to its fork: %s", source_id, error)
            shutil.rmtree(target, ignore_errors=True)


def _link_or_copy(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source``, or a copy where links are not allowed."""
    try:
        os.link(source, target)
    except OSError:
        import shutil

        shutil.copyfile(source, target)


def prune(root: Path, live: Iterable[str]) -> list[str]:
    """Remove the checkpoints of sessions that no longer exist; returns their ids."""
    import shutil

    keep = set(live)
    removed: list[str] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            if entry.is_dir(follow_symlinks=False) and entry.name not in keep:
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(entry.name)
    return removed
