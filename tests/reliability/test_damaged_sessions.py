"""A damaged line anywhere in a session file: the session still loads, is repaired
(every tool call keeps exactly one result) and says what it repaired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lull.engine.sessions.load import load_notes, load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.conftest import Lull, store_of
from tests.reliability.helpers import (
    turn_finished,
)
from tests.support import AgentFactory, run


def _damage(path: Path, predicate: Any) -> int:
    """Overwrite the first line matching ``predicate`` with garbage; its 1-based number."""
    lines = path.read_bytes().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if predicate(json.loads(line)))
    lines[number] = lines[number][: len(lines[number]) // 2] + b"\x00\xff garbage\n"
    path.write_bytes(b"".join(lines))
    return number + 1


def _is_call(record: dict[str, Any]) -> bool:
    parts = record.get("message", {}).get("parts", [])
    return any(p["type"] == "tool_call" for p in parts)


def _is_result(record: dict[str, Any]) -> bool:
    parts = record.get("message", {}).get("parts", [])
    return any(p["type"] == "tool_result" for p in parts)


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("damaged", "repair"),
    [
        ("call", "dropped 1 tool result(s) that answer no call"),
        ("result", "gave 1 tool call(s) without a saved result a 'lost' result"),
    ],
)
async def test_a_damaged_tool_line_in_the_middle_is_repaired_and_reported(
    vendor: str,
    damaged: str,
    repair: str,
    fake: FakeServer,
    make_agent: AgentFactory,
    workspace: Path,
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("list_directory", {})]), Reply(text="Listed."))
    agent = make_agent(vendor)
    await run(agent, "list the files")
    await run(agent, "thanks")
    path = agent.session.path
    assert path is not None
    agent.session.close()
    number = _damage(path, _is_call if damaged == "call" else _is_result)

    record = load_session(path)

    assert record.skipped == [number]
    assert any(line.startswith(repair) for line in record.repairs)
    notes = load_notes(record, path)
    assert notes[0].startswith(f"skipped 1 unreadable line(s) of {path} (line {number})")
    assert notes[1] == f"repaired the session's history: {record.repairs[0]}"
    store = SessionStore(path.parent.parent, workspace)
    resumed = make_agent(vendor, session=Session.resume(store, path))
    events = await run(resumed, "go on")  # the strict fake answers 400 to an unpaired history
    assert turn_finished(events).text == "(fake) You said: go on"


@pytest.mark.slow
def test_a_damaged_session_resumes_in_the_binary_with_a_warning(
    lull: Lull, fake: FakeServer
) -> None:
    (lull.workspace / "a.txt").write_text("alpha\n")
    fake.script(Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"})]), Reply(text="Alpha."))
    assert lull.run("-p", "read a.txt").returncode == 0
    path = store_of(lull).latest()
    number = _damage(path, _is_result)

    done = lull.run("-c", "-p", "and then?")

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(fake) You said: and then?"
    assert f"lull: warning: skipped 1 unreadable line(s) of {path} (line {number})" in done.stderr
    assert "lull: warning: repaired the session's history: gave 1 tool call(s)" in done.stderr
    assert "Traceback" not in done.stderr
