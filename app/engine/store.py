"""Session persistence: one append-only JSONL file per session, and finding it again.

Records: a ``session`` header, then ``message``, ``edit``, ``response``, ``environment``,
``tokens`` (exact token counts, so a resume does not count the history again) and
``rollback`` (a reply the guardrails threw away, never part of the transcript) lines in the
order they happened (written by :class:`app.engine.writer.SessionWriter`, which
also holds the one-writer lock). Loading skips lines it cannot read (a torn write, a damaged
line anywhere), repairs the tool-call pairing that skipping may break
(:mod:`app.engine.pairing`) and reports both (:func:`load_notes`). API keys are never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.engine.pairing import repair_pairing
from app.engine.writer import SessionWriter
from app.model.edits import ContextEdit, edit_from_dict
from app.model.messages import Message, message_from_dict
from app.model.provider import Usage
from app.model.rollbacks import RolledBack, rollback_from_dict
from app.model.text import json_line

FORMAT_VERSION = 1
SHOWN_LINE_NUMBERS = 5


class SessionNotFound(Exception):
    """No saved session matches what the user asked for."""


class SessionStorageError(Exception):
    """Sessions cannot be written where they live (a read-only or unusable data directory);
    the message is one line naming the place and what to do."""


@dataclass
class SessionRecord:
    """Everything a session file holds, loaded back.

    ``skipped`` lists the line numbers (1-based) that could not be read; ``repairs`` says
    what loading changed so the history is valid again (empty for an intact file).
    ``rollbacks`` are the replies the guardrails rolled back (shown, never sent).
    """

    id: str
    workspace: str
    created_at: float
    provider: str = ""
    model: str = ""
    messages: list[Message] = field(default_factory=list)
    edits: list[ContextEdit] = field(default_factory=list)
    last_response_at: float | None = None
    usage: Usage = field(default_factory=Usage)
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    last_usage: tuple[Usage, str] | None = None
    calibration: tuple[int, int] | None = None
    num_requests: int = 0
    skipped: list[int] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    environment: str = ""
    forked_from: str = ""
    parent_id: str = ""
    parent_call_id: str = ""
    agent: str = ""
    subagents: list[SubagentRun] = field(default_factory=list)
    subagent_usage_by_model: dict[str, Usage] = field(default_factory=dict)
    rollbacks: list[RolledBack] = field(default_factory=list)
    token_counts: TokenCounts | None = None

    @property
    def skipped_lines(self) -> int:
        """How many lines of the file could not be read."""
        return len(self.skipped)

    def add_response(self, at: float, usage: Usage, model: str, local_prompt: int = 0) -> None:
        """Count one answered request: the idle clock, the totals and the model's share;
        with ``local_prompt`` (the local token estimate of that prompt) also the newest
        calibration pair (reported prompt tokens, local estimate)."""
        self.last_response_at = at
        self.usage = self.usage + usage
        self.usage_by_model[model] = self.usage_by_model.get(model, Usage()) + usage
        self.last_usage = (usage, model)
        if local_prompt > 0 and usage.reported and usage.prompt_tokens > 0:
            self.calibration = (usage.prompt_tokens, local_prompt)
        self.num_requests += 1

    def add_subagent(self, run: SubagentRun) -> None:
        """Count one finished sub-agent: its session and its usage (kept apart from the
        session's own requests, so ``/cost`` can show the split)."""
        self.subagents.append(run)
        for model, usage in run.usage_by_model.items():
            before = self.subagent_usage_by_model.get(model, Usage())
            self.subagent_usage_by_model[model] = before + usage

    def header(self) -> dict[str, Any]:
        """The ``session`` line that starts this record's file."""
        data: dict[str, Any] = {
            "type": "session",
            "version": FORMAT_VERSION,
            "id": self.id,
            "workspace": self.workspace,
            "created_at": self.created_at,
            "provider": self.provider,
            "model": self.model,
        }
        if self.forked_from:
            data["forked_from"] = self.forked_from
        if self.parent_id:
            data["parent_id"] = self.parent_id
            data["parent_call_id"] = self.parent_call_id
            data["agent"] = self.agent
        return data


@dataclass
class TokenCounts:
    """Exact token counts made for a session, with the tokenizer that made them: per message
    id (as the message is in the transcript) and per tool-call id (how its result is cut for
    the model, :class:`app.context.truncate.Cut`: ``[total]`` or ``[total, head, tail,
    omitted]``), so a resumed session counts only what is new."""

    tokenizer: str
    messages: dict[str, int] = field(default_factory=dict)
    results: dict[str, list[int]] = field(default_factory=dict)

    def add(self, tokenizer: str, messages: dict[str, int], results: dict[str, list[int]]) -> None:
        """Take newer counts (those of another tokenizer replace everything kept)."""
        if tokenizer != self.tokenizer:
            self.tokenizer, self.messages, self.results = tokenizer, {}, {}
        self.messages.update(messages)
        self.results.update(results)


@dataclass(frozen=True)
class SubagentRun:
    """A sub-agent a session ran: the parent's call, the child's session and its usage."""

    call_id: str
    session_id: str
    agent: str
    usage_by_model: dict[str, Usage]

    def to_record(self) -> dict[str, Any]:
        """The ``subagent`` line of the parent's session file."""
        return {
            "type": "subagent",
            "call_id": self.call_id,
            "session_id": self.session_id,
            "agent": self.agent,
            "usage": {
                model: {**usage.to_dict(), "reported": usage.reported}
                for model, usage in self.usage_by_model.items()
            },
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> SubagentRun:
        """The run a ``subagent`` line stands for."""
        usage = {str(model): Usage(**dict(u)) for model, u in dict(data["usage"]).items()}
        return cls(str(data["call_id"]), str(data["session_id"]), str(data["agent"]), usage)


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


def _iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """(line number, parsed line); ``None`` for a line that is not a JSON object, and for a
    last line without its newline: the write was cut short (even if what is there parses),
    as the writer also judges it (``writer._drop_torn_tail``)."""
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                yield number, None
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                yield number, None
                continue
            yield number, value if isinstance(value, dict) else None


def _take(record: SessionRecord, data: dict[str, Any]) -> bool:
    """Add one record line to ``record``; False for a kind this version does not know."""
    kind = data.get("type")
    if kind == "message":
        record.messages.append(message_from_dict(data["message"]))
    elif kind == "edit":
        record.edits.append(edit_from_dict(data["edit"]))
    elif kind == "environment":
        record.environment = str(data["text"])
    elif kind == "tokens":
        messages = {str(k): int(v) for k, v in data.get("messages", {}).items()}
        results = {str(k): [int(n) for n in v] for k, v in data.get("results", {}).items()}
        if record.token_counts is None:
            record.token_counts = TokenCounts(str(data["tokenizer"]))
        record.token_counts.add(str(data["tokenizer"]), messages, results)
    elif kind == "subagent":
        record.add_subagent(SubagentRun.from_record(data))
    elif kind == "rollback":
        record.rollbacks.append(rollback_from_dict(data))
    elif kind == "response":
        usage = Usage(**data.get("usage", {}), reported=data.get("usage_reported") is not False)
        model, local = str(data.get("model", "")), int(data.get("local_prompt", 0))
        record.add_response(float(data["at"]), usage, model, local)
    else:
        return False
    return True


def _header(data: dict[str, Any]) -> SessionRecord:
    return SessionRecord(
        id=str(data["id"]),
        workspace=str(data.get("workspace", "")),
        created_at=float(data.get("created_at", 0.0)),
        provider=str(data.get("provider", "")),
        model=str(data.get("model", "")),
        forked_from=str(data.get("forked_from", "")),
        parent_id=str(data.get("parent_id", "")),
        parent_call_id=str(data.get("parent_call_id", "")),
        agent=str(data.get("agent", "")),
    )


def load_session(path: Path) -> SessionRecord:
    """Read a session file: unreadable lines are skipped (their numbers kept) and the
    tool-call pairing is repaired (what changed is kept in ``repairs``)."""
    record: SessionRecord | None = None
    skipped: list[int] = []
    for number, data in _iter_records(path):
        try:
            if data is None:
                raise ValueError("not a JSON object")
            if data.get("type") == "session" and record is None:
                record = _header(data)
            elif record is None or not _take(record, data):
                skipped.append(number)
        except (KeyError, TypeError, ValueError, AttributeError):
            skipped.append(number)
    if record is None:
        raise SessionNotFound(f"{path} is not a lull session file")
    record.skipped = skipped
    record.messages, repair = repair_pairing(record.messages)
    record.repairs = repair.describe()
    return record


def load_notes(record: SessionRecord, path: Path | None) -> list[str]:
    """What loading a session had to skip or repair, one line each (empty if nothing)."""
    notes: list[str] = []
    where = f" of {path}" if path else ""
    if record.skipped:
        numbers = ", ".join(str(n) for n in record.skipped[:SHOWN_LINE_NUMBERS])
        if len(record.skipped) > SHOWN_LINE_NUMBERS:
            numbers += ", …"
        notes.append(
            f"skipped {len(record.skipped)} unreadable line(s){where} (line {numbers}); "
            "everything else is kept"
        )
    notes.extend(f"repaired the session's history: {line}" for line in record.repairs)
    return notes
