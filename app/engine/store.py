"""Session persistence: one append-only JSONL file per session.

Records: a ``session`` header, then ``message``, ``edit`` and ``response``
lines in the order they happened. Every append is one ``write`` of a whole
line followed by a flush, so a crash can only tear the last line, which
loading skips. API keys are never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.model.edits import ContextEdit, edit_from_dict, edit_to_dict
from app.model.messages import Message, message_from_dict, message_to_dict
from app.model.provider import Usage

FORMAT_VERSION = 1


class SessionNotFound(Exception):
    """No saved session matches what the user asked for."""


@dataclass
class SessionRecord:
    """Everything a session file holds, loaded back."""

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
    skipped_lines: int = 0
    environment: str = ""

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


def workspace_key(workspace: Path) -> str:
    """A directory name for a workspace: readable tail plus a short hash."""
    text = str(workspace.resolve())
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[-48:] or "root"
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return f"{tail}-{digest}"


class SessionStore:
    """Where a workspace's sessions live, and how they are written and read."""

    def __init__(self, root: Path, workspace: Path) -> None:
        self.root = root
        self.workspace = workspace.resolve()
        self.dir = root / workspace_key(self.workspace)

    def path_for(self, session_id: str) -> Path:
        """The file of one session of this workspace."""
        return self.dir / f"{session_id}.jsonl"

    def list_sessions(self) -> list[Path]:
        """This workspace's session files, newest first."""
        if not self.dir.is_dir():
            return []
        files = [p for p in self.dir.glob("*.jsonl") if p.is_file()]
        return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)

    def latest(self) -> Path:
        """The most recently written session of this workspace."""
        sessions = self.list_sessions()
        if not sessions:
            raise SessionNotFound(
                f"no saved session for {self.workspace}; start one with `lull` or `lull -p`"
            )
        return sessions[0]

    def find(self, session_id: str) -> Path:
        """A session by id or unique id prefix, in this workspace first, then anywhere."""
        exact = self.path_for(session_id)
        if exact.is_file():
            return exact
        for directory in (self.dir, self.root):
            pattern = f"{session_id}*.jsonl" if directory == self.dir else f"*/{session_id}*.jsonl"
            matches = sorted(directory.glob(pattern)) if directory.is_dir() else []
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                names = ", ".join(p.stem for p in matches[:5])
                raise SessionNotFound(f"session id {session_id!r} is ambiguous: {names}")
        raise SessionNotFound(
            f"no saved session {session_id!r} (sessions are in {self.root}); "
            "use --continue for the latest one in this workspace"
        )

    def open_writer(self, record: SessionRecord) -> SessionWriter:
        """A writer appending to ``record``'s file (created with a header if new)."""
        path = self.path_for(record.id)
        self.dir.mkdir(parents=True, exist_ok=True)
        writer = SessionWriter(path)
        if not path.exists() or path.stat().st_size == 0:
            writer.append(
                {
                    "type": "session",
                    "version": FORMAT_VERSION,
                    "id": record.id,
                    "workspace": record.workspace,
                    "created_at": record.created_at,
                    "provider": record.provider,
                    "model": record.model,
                }
            )
        return writer


class SessionWriter:
    """Appends whole JSON lines to one session file, crash-safely."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _drop_torn_tail(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a single line."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode("utf-8"))

    def message(self, message: Message) -> None:
        """Record a transcript message."""
        self.append({"type": "message", "message": message_to_dict(message)})

    def edit(self, edit: ContextEdit) -> None:
        """Record a context edit."""
        self.append({"type": "edit", "edit": edit_to_dict(edit)})

    def response(self, at: float, usage: Usage, model: str, local_prompt: int = 0) -> None:
        """Record a completed API response (the idle clock, usage, the local estimate)."""
        record: dict[str, Any] = {"type": "response", "at": at, "usage": usage.to_dict()}
        if not usage.reported:
            record["usage_reported"] = False
        record["model"] = model
        if local_prompt:
            record["local_prompt"] = local_prompt
        self.append(record)

    def environment(self, text: str) -> None:
        """Record the environment block the session's requests use from now on."""
        self.append({"type": "environment", "text": text})

    def close(self) -> None:
        """Flush to disk and close."""
        if self._fd >= 0:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1


def _drop_torn_tail(path: Path) -> None:
    """Cut a partial last line (left by a crash) so new lines start clean."""
    if not path.exists():
        return
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    with path.open("r+b") as handle:
        handle.truncate(cut)


def _iter_records(path: Path) -> Iterator[dict[str, Any] | None]:
    """Parsed lines; ``None`` for a line that is not valid JSON."""
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                yield None
                continue
            yield value if isinstance(value, dict) else None


def load_session(path: Path) -> SessionRecord:
    """Read a session file; torn or foreign lines are skipped and counted."""
    record: SessionRecord | None = None
    skipped = 0
    for data in _iter_records(path):
        if data is None:
            skipped += 1
            continue
        kind = data.get("type")
        try:
            if kind == "session":
                record = SessionRecord(
                    id=str(data["id"]),
                    workspace=str(data.get("workspace", "")),
                    created_at=float(data.get("created_at", 0.0)),
                    provider=str(data.get("provider", "")),
                    model=str(data.get("model", "")),
                )
            elif record is None:
                skipped += 1
            elif kind == "message":
                record.messages.append(message_from_dict(data["message"]))
            elif kind == "edit":
                record.edits.append(edit_from_dict(data["edit"]))
            elif kind == "environment":
                record.environment = str(data["text"])
            elif kind == "response":
                usage = Usage(
                    **data.get("usage", {}), reported=data.get("usage_reported") is not False
                )
                model, local = str(data.get("model", "")), int(data.get("local_prompt", 0))
                record.add_response(float(data["at"]), usage, model, local)
            else:
                skipped += 1
        except (KeyError, TypeError, ValueError):
            skipped += 1
    if record is None:
        raise SessionNotFound(f"{path} is not a lull session file")
    record.skipped_lines = skipped
    return record
