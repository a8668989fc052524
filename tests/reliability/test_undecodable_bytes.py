"""Any bytes survive, to disk and to the wire: a file name, a prompt argument or piped
stdin that is not UTF-8, and a lone surrogate from the model, neither crash a turn nor break
the session file or the next request."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model.events import ToolFinished
from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.conftest import Lull, run_bytes, store_of
from tests.reliability.helpers import (
    messages_of,
    tool_result_texts,
    turn_finished,
)
from tests.support import AgentFactory, run

LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")  # the byte 0xE9 is not UTF-8: 'caf\udce9.txt'


AS_SENT = "caf\ufffd.txt"  # how the model is sent that name


def _last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


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

    assert turn_finished(events).text == "Read it."
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.result.is_error for e in finished] == [False, False, False]
    assert all(LATIN1_NAME in e.result.content for e in finished[:2])  # every byte kept
    assert "named in latin-1" in finished[2].result.content  # the model's name finds the file
    # replaced on the wire:
    assert any(AS_SENT in text for text in tool_result_texts(fake.requests[1]))
    path = agent.session.path
    assert path is not None
    agent.session.close()
    saved = messages_of(path)
    assert saved == agent.session.transcript  # the file reads back the same strings
    resumed = make_agent(
        vendor, session=Session.resume(SessionStore(path.parent.parent, workspace), path)
    )
    assert turn_finished(await run(resumed, "and now?")).text.startswith("(fake) You said")


@pytest.mark.slow
def test_a_non_utf8_byte_in_the_prompt_argument(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="Got it."))

    done = run_bytes(lull, [b"-p", b"caf\xe9 and \xff"])

    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert done.stdout.decode().strip() == "Got it."
    assert _last_user_text(fake.requests[-1]) == "caf\ufffd and \ufffd"
    [prompt, _answer] = messages_of(store_of(lull).latest())
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
    [prompt, _answer] = messages_of(store_of(lull).latest())
    assert prompt.text.endswith(os.fsdecode(b"ERROR \xff\xfe at offset 3\n"))
    assert lull.run("-c", "-p", "again").returncode == 0


@pytest.mark.slow
def test_a_lone_surrogate_from_the_model(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="half an emoji: \ud83d, a stray: \udce9."))

    done = run_bytes(lull, ["-p", "say something odd"])

    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert done.stdout.decode().strip() == "half an emoji: \ufffd, a stray: \ufffd."
    [_prompt, answer] = messages_of(store_of(lull).latest())
    assert answer.text == "half an emoji: \ud83d, a stray: \udce9."  # saved exactly
    again = lull.run("-c", "-p", "again")
    assert again.returncode == 0, again.stderr
    assistant = fake.requests[-1]["messages"][1]["content"]
    sent = assistant if isinstance(assistant, str) else assistant[0]["text"]
    assert sent == "half an emoji: \ufffd, a stray: \ufffd."


@pytest.mark.slow
@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("write_file", {"content": "x"}),
        ("edit", {"old_string": "x", "new_string": "y"}),
    ],
)
def test_a_lone_surrogate_in_a_file_path_is_an_error_result_not_a_crash(
    lull: Lull, fake: FakeServer, tool: str, arguments: dict[str, str]
) -> None:
    name = "a\ud800b.txt"  # no file name holds it (not even with surrogateescape)
    fake.script(Reply(tool_calls=[ToolUse(tool, {"path": name, **arguments})]), Reply(text="ok"))

    done = run_bytes(lull, ["-p", "write it", "--approval-mode", "yolo"])

    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert done.stdout.decode().strip() == "ok"
    [result] = tool_result_texts(fake.requests[-1])
    assert result.startswith("path 'a\\ud800b.txt' holds a lone surrogate (U+D800")
    assert os.listdir(lull.workspace) == []
