"""A full disk or a read-only data directory: the conversation goes on, the user is told
once in one clear line, records are saved when space returns, and nothing is torn."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lull.commands import run_command
from lull.engine.sessions.load import load_session
from lull.model.events import Notice
from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.conftest import Lull, run_bytes, store_of
from tests.reliability.helpers import (
    messages_of,
    turn_finished,
)
from tests.support import AgentFactory, fake_runtime, run


@contextlib.contextmanager
def file_size_limit(size: int) -> Iterator[None]:
    """Writes that would grow a file past ``size`` bytes fail (EFBIG) in this process, the
    way a full disk fails them: at the OS boundary, part-way through a write."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


async def test_a_full_disk_mid_turn_keeps_the_turn_and_saves_when_space_returns(
    fake: FakeServer, make_agent: AgentFactory
) -> None:
    agent = make_agent()
    await run(agent, "first")
    path = agent.session.path
    assert path is not None
    size = path.stat().st_size
    fake.script(Reply(tool_calls=[ToolUse("list_directory", {})]), Reply(text="Listed."))

    with file_size_limit(size + 10):
        events = await run(agent, "second")

    assert turn_finished(events).text == "Listed."
    warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"could not save the session to {path} (File too large)")
    assert path.stat().st_size == size  # the part-written line was cut back
    events = await run(agent, "third")
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert notices == [f"saving the session to {path} works again; nothing was lost"]
    assert agent.session.close() is None
    record = load_session(path)
    assert record.messages == agent.session.transcript and not record.skipped
    assert record.num_requests == 4


async def test_clear_while_the_disk_is_full_says_what_the_old_session_lost(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    runtime = fake_runtime(fake, workspace, tmp_path)
    await run(runtime.agent, "first")
    old = runtime.agent.session
    assert old.path is not None

    with file_size_limit(old.path.stat().st_size + 10):
        await run(runtime.agent, "second")
        result = run_command(runtime, "/clear")

    assert result.lines[0] == f"new session {runtime.agent.session.id}"
    assert re.fullmatch(
        f"warning: [0-9]+ record\\(s\\) of session {old.id} could not be saved to "
        f"{re.escape(str(old.path))} \\(File too large\\); it resumes from its last saved message",
        result.lines[1],
    )
    assert [m.text for m in messages_of(old.path)] == ["first", "(fake) You said: first"]


def _limited(size: int) -> list[str]:
    """A command prefix that runs the rest with files limited to ``size`` bytes."""
    code = (
        "import os, resource, sys; "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]),) * 2); "
        "os.execv(sys.argv[2], sys.argv[2:])"
    )
    return [sys.executable, "-c", code, str(size)]


@pytest.mark.slow
def test_a_full_disk_in_a_real_run_says_so_and_the_session_stays_resumable(
    lull: Lull, fake: FakeServer
) -> None:
    assert lull.run("-p", "first").returncode == 0
    path = store_of(lull).latest()
    size = path.stat().st_size

    done = run_bytes(lull, ["-c", "-p", "second"], prefix=_limited(size + 40))

    stderr = done.stderr.decode()
    assert done.stdout.decode().strip() == "(fake) You said: second"  # the answer is printed
    assert "Traceback" not in stderr and "Logging error" not in stderr
    assert f"lull: could not save the session to {path} (File too large)" in stderr
    assert re.search(
        f"lull: error: [0-9]+ record\\(s\\) of session {path.stem} could not be saved", stderr
    )
    assert done.returncode == 1
    assert path.stat().st_size == size  # no torn line
    third = lull.run("-c", "-p", "third")
    assert third.returncode == 0, third.stderr
    assert "warning" not in third.stderr
    record = load_session(path)
    assert [m.text for m in record.messages] == [
        "first",
        "(fake) You said: first",
        "third",
        "(fake) You said: third",
    ]


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """Make ``directory`` unwritable, for root too (immutable) when the system allows it."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        try:
            yield
        finally:
            directory.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    made = chattr and subprocess.run([chattr, "+i", str(directory)], capture_output=True)
    if not chattr or not made or made.returncode != 0:
        pytest.skip("cannot make a directory read-only for root here (no chattr +i)")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(directory)], check=True)


@pytest.mark.slow
def test_a_read_only_data_directory_at_start(lull: Lull, tmp_path: Path) -> None:
    data = tmp_path / "read-only-data"
    data.mkdir()

    with read_only(data):
        done = lull.run("-p", "hello", env={"XDG_DATA_HOME": str(data)})

    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"lull: error: cannot save sessions in {data}/lull/sessions/")
    assert line.endswith("make it writable, or set XDG_DATA_HOME to a writable directory")
