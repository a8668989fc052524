"""Property tests: however a session file is cut short or damaged, and wherever the real
``lull -p`` is killed in a tool loop, the session loads, keeps every complete record, and what
it sends next is a valid history (the strict fake answers 400 otherwise).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lull.engine.sessions.load import SessionNotFound, load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import TurnFailed, TurnFinished
from lull.model.messages import Message, message_from_dict
from tests.e2e.conftest import lull_command
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import build_agent, run

FAST = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def module_fake() -> Iterator[FakeServer]:
    """One fake for every example of a property (reset before each)."""
    with FakeServer() as server:
        yield server


def _tool_loop(fake: FakeServer) -> None:
    """Script a three-step tool loop with parallel calls and thinking, then an answer."""
    fake.script(
        Reply(
            thinking="look around first",
            tool_calls=[ToolUse("list_directory", {}), ToolUse("read_file", {"path": "a.txt"})],
        ),
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo step two"})]),
        Reply(thinking="one more", tool_calls=[ToolUse("glob", {"pattern": "*.txt"})]),
        Reply(text="All done."),
    )


@pytest.fixture(scope="module")
def saved_session(module_fake: FakeServer, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a real session file: two turns, a tool loop, parallel calls, thinking."""
    root = tmp_path_factory.mktemp("source")
    workspace = root / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("alpha\n")
    module_fake.reset()
    _tool_loop(module_fake)
    agent = build_agent(module_fake, workspace, root, "anthropic")
    asyncio.run(run(agent, "tidy the workspace"))
    asyncio.run(run(agent, "thanks"))
    path = agent.session.path
    assert path is not None
    agent.session.close()
    return path.read_bytes()


def _complete_messages(data: bytes) -> list[Message]:
    """The messages of every complete, readable line of ``data`` (a last line without its
    newline is torn even when it parses, as the store judges it: the loader skips it)."""
    messages: list[Message] = []
    for line in data.split(b"\n")[:-1]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "message":
            messages.append(message_from_dict(record["message"]))
    return messages


def _resume_and_send(fake: FakeServer, path: Path, workspace: Path, data_dir: Path) -> None:
    """Resume ``path`` and run one turn through the strict fake: it must be accepted."""
    fake.reset()
    session = Session.resume(SessionStore(path.parent.parent, workspace), path)
    agent = build_agent(fake, workspace, data_dir, "anthropic", session=session)
    events = asyncio.run(run(agent, "carry on"))
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert not failed, failed
    assert any(isinstance(e, TurnFinished) for e in events)
    agent.session.close()


def _place(data: bytes, root: Path) -> tuple[Path, Path]:
    """Write ``data`` as a session file of a fresh workspace under ``root``."""
    workspace = root / "ws"
    workspace.mkdir()
    store = SessionStore(root / "sessions", workspace)
    store.dir.mkdir(parents=True)
    path = store.path_for("00000000-torn")
    path.write_bytes(data)
    return path, workspace


@FAST
@given(cut=st.floats(0.0, 1.0))
def test_a_file_torn_anywhere_loads_every_complete_record_and_sends_validly(
    cut: float, saved_session: bytes, module_fake: FakeServer
) -> None:
    data = saved_session[: int(len(saved_session) * cut)]
    with tempfile.TemporaryDirectory() as temporary:
        path, workspace = _place(data, Path(temporary))
        if b"\n" not in data:  # not even the header survived
            with pytest.raises(SessionNotFound, match="is not a lull session file"):
                load_session(path)
            return

        record = load_session(path)

        assert record.messages == _complete_messages(data)
        assert not record.repairs  # a cut only loses the end; open calls wait for the next turn
        assert record.skipped in ([], [data.count(b"\n") + 1])  # at most the torn last line
        _resume_and_send(module_fake, path, workspace, Path(temporary))


Damage = tuple[str, float]
DAMAGE = st.tuples(st.sampled_from(["garble", "drop", "duplicate"]), st.floats(0.0, 1.0))


def _apply(lines: list[bytes], damage: Damage) -> tuple[list[bytes], int]:
    """One line (never the header) garbled, dropped or written twice; the index touched."""
    kind, where = damage
    index = 1 + int(where * (len(lines) - 2))
    if kind == "garble":
        lines[index] = lines[index][: len(lines[index]) // 3] + b"\xff\x00\n"
    elif kind == "drop":
        del lines[index]
    else:
        lines.insert(index, lines[index])
    return lines, index


@FAST
@given(damages=st.lists(DAMAGE, min_size=1, max_size=3))
def test_damaged_lines_anywhere_load_repaired_and_send_validly(
    damages: list[Damage], saved_session: bytes, module_fake: FakeServer
) -> None:
    lines = saved_session.splitlines(keepends=True)
    for damage in damages:
        lines, _ = _apply(lines, damage)
    data = b"".join(lines)
    with tempfile.TemporaryDirectory() as temporary:
        path, workspace = _place(data, Path(temporary))

        record = load_session(path)

        intact = _complete_messages(data)
        loaded_ids = {m.id for m in record.messages}
        for message in intact:  # every readable message is kept, unless only orphans were in it
            orphans_only = message.tool_results and all(
                r.call_id not in {c.id for m in record.messages for c in m.tool_calls}
                for r in message.tool_results
            )
            assert message.id in loaded_ids or orphans_only or _duplicate(message, intact)
        _resume_and_send(module_fake, path, workspace, Path(temporary))


def _duplicate(message: Message, messages: list[Message]) -> bool:
    """A line written twice: its second copy's results answer nothing (they are dropped)."""
    return sum(1 for m in messages if m.id == message.id) > 1


# --- killing the real binary mid tool loop -----------------------------------------------------


def _lines_in(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def _session_file(sessions: Path) -> Path | None:
    found = sorted(sessions.glob("*/*.jsonl")) if sessions.is_dir() else []
    return found[0] if found else None


def _kill_after(process: subprocess.Popen[bytes], sessions: Path, lines: int) -> None:
    """SIGKILL ``process`` once its session file has ``lines`` lines (or it ended)."""
    while process.poll() is None:
        path = _session_file(sessions)
        if path is not None and _lines_in(path) >= lines:
            break
        try:
            process.wait(timeout=0.005)
        except subprocess.TimeoutExpired:
            continue
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def _environment(home: Path, fake: FakeServer) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        ANTHROPIC_BASE_URL=fake.url,
        ANTHROPIC_API_KEY="test-key",
    )
    return env


@pytest.mark.slow
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=st.integers(1, 14))
def test_killing_lull_anywhere_in_a_tool_loop_leaves_a_resumable_session(
    lines: int, module_fake: FakeServer
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        home = Path(temporary)
        workspace = home / "ws"
        workspace.mkdir()
        (workspace / "a.txt").write_text("alpha\n")
        module_fake.reset()
        _tool_loop(module_fake)
        process = subprocess.Popen(
            [*lull_command(), "-p", "tidy the workspace", "--approval-mode", "yolo"],
            cwd=workspace,
            env=_environment(home, module_fake),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        sessions = home / "data" / "lull" / "sessions"
        _kill_after(process, sessions, lines)
        assert process.stderr is not None
        assert b"Traceback" not in process.stderr.read()
        process.stderr.close()
        path = _session_file(sessions)
        if path is None:
            return  # killed before the session was created: nothing to resume
        data = path.read_bytes()

        record = load_session(path)

        assert record.messages == _complete_messages(data)
        _resume_and_send(module_fake, path, workspace, home)
