"""Reading a session file back: lines that cannot be read are skipped (their numbers
kept), the tool-call pairing that skipping may break is repaired
(:mod:`lull.engine.sessions.pairing`),
and both are reported (:func:`load_notes`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lull.engine.sessions.pairing import repair_pairing
from lull.engine.sessions.record import SessionRecord, SubagentRun, TokenCounts
from lull.model.edits import edit_from_dict
from lull.model.messages import message_from_dict
from lull.model.provider import Usage
from lull.model.rollbacks import rollback_from_dict

SHOWN_LINE_NUMBERS = 5


class SessionNotFound(Exception):
    """No saved session matches what the user asked for."""


def _read_records(path: Path) -> list[tuple[int, dict[str, Any] | None]]:
    """What :func:`_iter_records` yields, parsed in one ``json.loads`` call when every complete
    line is a JSON object (a resume reads thousands of lines); line by line otherwise.

    The lines are joined with ``",\n"``: a raw newline cannot be inside a JSON string, so the
    one call succeeds with as many objects as lines only when each line is one whole object
    (one damaged line either fails it or changes the count; then every line is read again on
    its own, so what is skipped, and its line number, is what line-by-line reading finds).
    """
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    lines = text.split("\n")  # the text is newline-translated as when iterating the file
    last = lines.pop()  # after the last newline: "" or a line whose write was cut short
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    try:
        values = json.loads("[" + ",\n".join(line for _, line in numbered) + "]")
    except json.JSONDecodeError:
        values = None
    if values is None or len(values) != len(numbered) or not all(type(v) is dict for v in values):
        return list(_iter_records(path))
    records: list[tuple[int, dict[str, Any] | None]] = [
        (number, value) for (number, _), value in zip(numbered, values, strict=True)
    ]
    if last.strip():
        records.append((len(lines) + 1, None))
    return records


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
    elif kind == "tools_loaded":
        names = data["names"]
        if not isinstance(names, list):
            raise TypeError("names is not a list")
        record.loaded_tools.extend(str(n) for n in names if str(n) not in record.loaded_tools)
    elif kind == "tokens":
        messages = {str(k): int(v) for k, v in data.get("messages", {}).items()}
        results = {str(k): [int(n) for n in v] for k, v in data.get("results", {}).items()}
        if record.token_counts is None:
            record.token_counts = TokenCounts(str(data["tokenizer"]))
        record.token_counts.add(str(data["tokenizer"]), messages, results)
    elif kind == "subagent":
        record.add_subagent(SubagentRun.from_record(data))
    elif kind == "tool_times":
        record.tool_seconds.update({str(k): float(v) for k, v in data["seconds"].items()})
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
    for number, data in _read_records(path):
        try:
            if data is None:
                raise ValueError("not a JSON object")
            kind = data.get("type")
            if kind == "message" and record is not None:  # nearly every line
                record.messages.append(message_from_dict(data["message"]))
            elif kind == "session" and record is None:
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
