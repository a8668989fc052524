"""Sessions survive what real use throws at them (issue 11, items 5, 6, 7, 8, 10 and 18).

Each test reproduces the original failure: non-UTF-8 bytes crashing a turn, two processes
corrupting one session, a damaged line making a session unusable, a full disk or a read-only
data directory ending in a traceback, duplicate tool-call ids losing a result, and ``-r '*'``
printing a glob traceback. Engine behaviour runs against the strict fake through the official
SDKs (it answers 400 to any invalid history); user-facing behaviour runs the real binary.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lull.commands import run_command
from lull.engine.sessions.load import SessionNotFound, load_notes, load_session
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.engine.sessions.writer import SessionLocked
from lull.model.events import Event, Notice, ToolFinished, TurnFailed, TurnFinished
from lull.model.messages import Message, ToolCall, ToolResult, user_text
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.runtime import SwitchError
from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.conftest import Lull, run_bytes, store_of
from tests.support import AgentFactory, agent_on, fake_runtime, run

LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")  # the byte 0xE9 is not UTF-8: 'caf\udce9.txt'
AS_SENT = "caf\ufffd.txt"  # how the model is sent that name


def _finished(events: list[Event]) -> TurnFinished:
    failed = [e for e in events if isinstance(e, TurnFailed)]
    assert not failed, failed
    [done] = [e for e in events if isinstance(e, TurnFinished)]
    return done


def _results(body: dict[str, Any]) -> list[str]:
    """The text of every tool result in a request body, either protocol."""
    found: list[str] = []
    for message in body["messages"]:
        if message["role"] == "tool":
            found.append(message["content"])
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = block["content"]
                    if isinstance(text, list):
                        text = "".join(b.get("text", "") for b in text)
                    found.append(text)
    return found


def _last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def _messages_of(path: Path) -> list[Message]:
    return load_session(path).messages


# --- item 5: any bytes survive, to disk and to the wire ------------------------------------


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
async def test_a_latin1_file_name_survives_list_directory_glob_and_read_file(
    vendor: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path, tmp_path: Path
) -> None:
    (workspace / LATIN1_NAME).write_text("named in latin-1\n")
    fake.script(
        Reply(tool_calls=[ToolUse("list_directory", {}), ToolUse("glob", {"pattern": "*.txt"})]),
        Reply(tool_calls=[ToolUse("read_file", {"path": AS_SENT})]),
        Reply(text="Read it."),
    )
    agent = make_agent(vendor)

    events = await run(agent, "what files are there?")

    assert _finished(events).text == "Read it."
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.result.is_error for e in finished] == [False, False, False]
    assert all(LATIN1_NAME in e.result.content for e in finished[:2])  # every byte kept
    assert "named in latin-1" in finished[2].result.content  # the model's name finds the file
    assert any(AS_SENT in text for text in _results(fake.requests[1]))  # replaced on the wire
    path = agent.session.path
    assert path is not None
    agent.session.close()
    saved = _messages_of(path)
    assert saved == agent.session.transcript  # the file reads back the same strings
    resumed = make_agent(
        vendor, session=Session.resume(SessionStore(path.parent.parent, workspace), path)
    )
    assert _finished(await run(resumed, "and now?")).text.startswith("(fake) You said")


@pytest.mark.slow
def test_a_non_utf8_byte_in_the_prompt_argument(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="Got it."))

    done = run_bytes(lull, [b"-p", b"caf\xe9 and \xff"])

    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert done.stdout.decode().strip() == "Got it."
    assert _last_user_text(fake.requests[-1]) == "caf\ufffd and \ufffd"
    [prompt, _answer] = _messages_of(store_of(lull).latest())
    assert prompt.text == os.fsdecode(b"caf\xe9 and \xff")  # the bytes themselves are saved
    again = lull.run("-c", "-p", "again")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "(fake) You said: again"


@pytest.mark.slow
def test_a_non_utf8_byte_in_piped_stdin(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="A log."))

    done = run_bytes(lull, ["-p", "explain"], stdin=b"ERROR \xff\xfe at offset 3\n")

    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"warning" not in done.stderr
    assert done.stdout.decode().strip() == "A log."
    sent = _last_user_text(fake.requests[-1])
    assert "explain" in sent and "ERROR \ufffd\ufffd at offset 3" in sent  # not dropped
    [prompt, _answer] = _messages_of(store_of(lull).latest())
    assert prompt.text.endswith(os.fsdecode(b"ERROR \xff\xfe at offset 3\n"))
    assert lull.run("-c", "-p", "again").returncode == 0


@pytest.mark.slow
def test_a_lone_surrogate_from_the_model(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="half an emoji: \ud83d, a stray: \udce9."))

    done = run_bytes(lull, ["-p", "say something odd"])

    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert done.stdout.decode().strip() == "half an emoji: \ufffd, a stray: \ufffd."
    [_prompt, answer] = _messages_of(store_of(lull).latest())
    assert answer.text == "half an emoji: \ud83d, a stray: \udce9."  # saved exactly
    again = lull.run("-c", "-p", "again")
    assert again.returncode == 0, again.stderr
    assistant = fake.requests[-1]["messages"][1]["content"]
    sent = assistant if isinstance(assistant, str) else assistant[0]["text"]
    assert sent == "half an emoji: \ufffd, a stray: \ufffd."


# --- item 6: one writer per session; a second process says so and can fork -------------------


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
    assert [m.text for m in _messages_of(first.path)] == ["hello", "only in the original"]
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


# --- item 7: a damaged line anywhere: the session loads, is repaired and says so --------------


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
    assert _finished(events).text == "(fake) You said: go on"


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


# --- item 8: a full disk or a read-only data directory: a clear message, nothing torn ---------


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

    assert _finished(events).text == "Listed."
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
    assert [m.text for m in _messages_of(old.path)] == ["first", "(fake) You said: first"]


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


# --- item 10: duplicate tool-call ids are made unique on receipt ------------------------------


async def test_duplicate_call_ids_on_the_scripted_provider_each_get_their_result(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")

    def reads(*names: str) -> ScriptedReply:
        calls = tuple(ScriptedCall("read_file", {"path": n}, id="dup") for n in names)
        return ScriptedReply(tool_calls=calls)

    provider = ScriptedProvider(
        [
            reads("a.txt", "b.txt"),
            ScriptedReply(text="both"),
            reads("b.txt"),
            ScriptedReply(text="b"),
        ]
    )
    agent = agent_on(provider, workspace, tmp_path, clock=time.time)
    session, store = agent.session, SessionStore(tmp_path / "sessions", workspace)

    await run(agent, "read both")
    await run(agent, "read b again")  # "dup" was used earlier in the session

    calls = [p for m in session.transcript for p in m.parts if isinstance(p, ToolCall)]
    assert [c.id for c in calls] == ["dup", "dup_2", "dup_3"]
    results = {p.call_id: p.content for m in session.transcript for p in m.tool_results}
    assert "alpha" in results["dup"] and "beta" in results["dup_2"] and "beta" in results["dup_3"]
    sent = provider.requests[1].messages[-1].tool_results
    assert [r.call_id for r in sent] == ["dup", "dup_2"]
    session.close()
    assert _messages_of(store.latest()) == session.transcript


@pytest.mark.parametrize(("vendor", "same"), [("anthropic", "toolu_same"), ("openai", "call_0")])
async def test_duplicate_call_ids_through_the_fake_are_accepted_on_the_next_request(
    vendor: str, same: str, fake: FakeServer, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    fake.script(
        Reply(
            tool_calls=[
                ToolUse("read_file", {"path": "a.txt"}, id=same),
                ToolUse("read_file", {"path": "b.txt"}, id=same),
            ]
        ),
        Reply(text="Both read."),
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"}, id=same)]),  # a local server
        Reply(text="Again."),  # numbering its calls from 0 on every answer
    )
    agent = make_agent(vendor)

    assert _finished(await run(agent, "read both")).text == "Both read."
    assert _finished(await run(agent, "once more")).text == "Again."

    results = _results(fake.requests[1])
    assert len(results) == 2 and "alpha" in results[0] and "beta" in results[1]
    assert len(_results(fake.requests[-1])) == 3


# --- item 18: a session id is literal text; a bad --resume value gets one line ----------------


@pytest.mark.parametrize("wanted", ["*", "?", "[a-f]*", "**/x", "../escape", "a/b"])
def test_find_treats_the_session_id_as_literal_text(
    wanted: str, tmp_path: Path, workspace: Path
) -> None:
    store = SessionStore(tmp_path / "sessions", workspace)
    Session.create(store, provider="scripted", model="m").close()

    with pytest.raises(SessionNotFound) as missing:
        store.find(wanted)

    assert str(missing.value).startswith(f"no saved session {wanted!r}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        ("*", 1, "lull: error: no saved session '*'"),
        ("[", 1, "lull: error: no saved session '['"),
        ("../../etc/passwd", 1, "lull: error: no saved session '../../etc/passwd'"),
        ("", 2, "argument -r/--resume: expected a session id, got an empty string"),
    ],
)
def test_a_bad_resume_value_gets_one_line(
    value: str, code: int, message: str, lull: Lull, fake: FakeServer
) -> None:
    Session.create(store_of(lull), provider="anthropic", model="m").close()  # one to match

    done = lull.run("-r", value, "-p", "hello")

    assert done.returncode == code
    assert "Traceback" not in done.stderr
    assert message in done.stderr.strip().splitlines()[-1]
    if code == 1:
        assert len(done.stderr.strip().splitlines()) == 1
