"""One writer per session: a session open in one place (or process) is refused elsewhere,
naming the holder, and can be forked instead; both processes keep a valid file."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from lull.engine.sessions.load import load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.engine.sessions.writer import SessionLocked
from lull.model.messages import ToolResult, user_text
from lull.runtime import SwitchError
from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.conftest import Lull, store_of
from tests.reliability.helpers import (
    messages_of,
)
from tests.support import fake_runtime


def test_a_session_open_in_one_place_is_refused_elsewhere_and_can_be_forked(
    tmp_path: Path, workspace: Path
) -> None:
    store = SessionStore(tmp_path / "sessions", workspace)
    first = Session.create(store, provider="scripted", model="m")
    first.add(user_text("hello"))
    assert first.path is not None

    with pytest.raises(SessionLocked) as refused:
        Session.resume(store, first.path)

    assert refused.value.pid == os.getpid()
    assert refused.value.session_id == first.id
    copy = Session.resume(store, store.fork(first.path))
    assert copy.id != first.id and copy.record.forked_from == first.id
    assert copy.transcript == first.transcript
    copy.add(user_text("only in the copy"))
    first.add(user_text("only in the original"))
    copy.close()
    first.close()
    assert [m.text for m in messages_of(first.path)] == ["hello", "only in the original"]
    again = Session.resume(store, first.path)
    assert again.transcript[-1].text == "only in the original"
    again.close()


def test_resume_command_of_a_session_in_use_names_it_and_offers_the_fork(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    runtime = fake_runtime(fake, workspace, tmp_path)
    other = Session.create(runtime.store, provider="anthropic", model="claude-test")
    other.add(user_text("busy elsewhere"))

    with pytest.raises(SwitchError) as refused:
        runtime.resume(other.id)

    message = str(refused.value)
    assert f"session {other.id} is in use" in message and f"pid {os.getpid()}" in message
    assert f"lull --resume {other.id} --fork-session" in message
    assert "\n" not in message
    other.close()
    assert runtime.resume(other.id).id == other.id


def _wait_for(predicate: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def _has_tool_call(path: Path) -> bool:
    return path.is_file() and b'"type":"tool_call"' in path.read_bytes()


@pytest.mark.slow
def test_two_processes_on_one_session(lull: Lull, fake: FakeServer) -> None:
    gate = lull.workspace / "gate"
    command = f"while [ ! -e '{gate}' ]; do sleep 0.02; done; echo released"
    fake.script(Reply(tool_calls=[ToolUse("run_shell_command", {"command": command})]))
    first = lull.popen("-p", "run the slow command", "--approval-mode", "yolo")
    try:
        store = store_of(lull)
        _wait_for(lambda: bool(store.list_sessions()), "the first session file")
        path = store.latest()
        _wait_for(lambda: _has_tool_call(path), "the first process to run its tool")

        second = lull.run("-c", "-p", "me too")

        assert second.returncode == 1
        assert "Traceback" not in second.stderr
        [line] = second.stderr.strip().splitlines()
        assert f"session {path.stem} is in use by another lull (pid {first.pid})" in line
        assert f"lull --resume {path.stem} --fork-session" in line
        forked = lull.run("-c", "--fork-session", "-p", "me too", "--output-format", "json")
        assert forked.returncode == 0, forked.stderr
        copy_id = json.loads(forked.stdout)["session_id"]
        assert copy_id != path.stem
        assert f"continuing in a copy of session {path.stem}: {copy_id}" in forked.stderr
        assert load_session(store.path_for(copy_id)).forked_from == path.stem
    finally:
        gate.touch()
        _out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    record = load_session(path)
    assert not record.skipped and not record.repairs
    [result] = [p for m in record.messages for p in m.parts if isinstance(p, ToolResult)]
    assert result.content.strip().endswith("released")  # the real result, not "cancelled"
    again = lull.run("--resume", path.stem, "-p", "and now?")
    assert again.returncode == 0, again.stderr
