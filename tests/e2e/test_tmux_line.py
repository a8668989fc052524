"""The installed ``lull --plain`` in a real terminal (tmux) against the loopback fake."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import Lull, lull_command
from tests.e2e.tmux import Tmux, needs_tmux
from tests.fakes import FakeServer, Reply, ToolUse

pytestmark = [
    pytest.mark.slow,
    needs_tmux,
]

RESUME = re.compile(r"resume with: lull --resume ([0-9a-f-]{36})")


def _start(tmux: Tmux, lull: Lull, *args: str) -> None:
    tmux.start(lull, "--plain", *args)
    tmux.wait_for("Ctrl+D quits")
    tmux.wait_for(lambda s: s.rstrip().endswith(">"))


def _quit(tmux: Tmux) -> str:
    """Press Ctrl+D; lull must exit with 0 and print how to resume; returns the session id."""
    tmux.send("C-d")
    assert tmux.exit_code() == 0
    match = RESUME.search(tmux.screen())
    assert match, tmux.screen()
    return match.group(1)


def test_a_prompt_streams_a_markdown_answer_and_ctrl_d_quits(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(text="# Plan\n\nHello **world**, streamed.\n\n- first step\n- second step\n"))
    _start(tmux, lull)
    tmux.type("say hello")
    tmux.send("Enter")
    screen = tmux.wait_for("1 request:")
    assert "Hello world, streamed." in screen  # markdown rendered: no ** left
    assert "first step" in screen and "second step" in screen
    session_id = _quit(tmux)
    saved = list(Path(lull.env["XDG_DATA_HOME"]).rglob(f"{session_id}.jsonl"))
    assert len(saved) == 1


def test_approval_denied_with_a_reason_then_allowed(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo from-the-tool"})]),
        Reply(text="understood, not running it"),
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "echo from-the-tool"})]),
        Reply(text="ran it"),
    )
    _start(tmux, lull)
    tmux.type("run echo")
    tmux.send("Enter")
    tmux.wait_for("Allow run_shell_command(echo from-the-tool)?")
    tmux.type("no, use printf instead")
    tmux.send("Enter")
    tmux.wait_for("understood, not running it")
    denied = json.dumps(fake.requests[1])
    assert "The user denied this run_shell_command call. Reason: use printf instead" in denied

    tmux.type("now run it")
    tmux.send("Enter")
    tmux.wait_for(lambda s: s.count("Allow run_shell_command") == 2)
    tmux.type("y")
    tmux.send("Enter")
    tmux.wait_for("ran it")
    assert "from-the-tool" in json.dumps(fake.requests[3])
    _quit(tmux)


def test_ctrl_c_mid_stream_keeps_a_valid_session_that_resumes(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    slow = "streaming word " * 200  # a stream of minutes: Ctrl+C lands mid-way, however busy
    fake.script(Reply(text=slow, chunk_size=4, chunk_delay=0.2), Reply(text="back again"))
    _start(tmux, lull)
    tmux.type("write a lot")
    tmux.send("Enter")
    tmux.wait_for("streaming word streaming")
    tmux.send("C-c")
    tmux.wait_for("interrupted")
    tmux.type("/cost")  # still usable after the interrupt
    tmux.send("Enter")
    tmux.wait_for("cache hit ratio")
    session_id = _quit(tmux)

    _start(tmux, lull, "--resume", session_id)
    tmux.wait_for(f"session {session_id}: 1 messages")
    tmux.type("are you there?")
    tmux.send("Enter")
    tmux.wait_for("back again")
    assert fake.journal[-1].status == 200
    user_texts = [m for m in fake.requests[-1]["messages"] if m["role"] == "user"]
    assert "write a lot" in json.dumps(user_texts[0])
    _quit(tmux)


def test_ctrl_c_during_a_tool_closes_the_call_and_the_chat_goes_on(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("run_shell_command", {"command": "sleep 30"})]))
    _start(tmux, lull, "--approval-mode", "yolo")
    tmux.type("wait a while")
    tmux.send("Enter")
    tmux.wait_for("run_shell_command(sleep 30)")
    tmux.send("C-c")
    tmux.wait_for("interrupted")
    tmux.type("next")
    tmux.send("Enter")
    tmux.wait_for("(fake) You said: next")
    assert fake.journal[-1].status == 200  # the strict fake saw every call answered
    assert "Cancelled by the user" in json.dumps(fake.requests[-1])
    _quit(tmux)


def test_history_survives_a_restart_and_newline_keys_make_one_message(
    tmux: Tmux, lull: Lull, fake: FakeServer
) -> None:
    _start(tmux, lull)
    tmux.type("first line")
    tmux.send("C-j")
    tmux.type("second line")
    tmux.send("Enter")
    tmux.wait_for("(fake) You said: first line")
    assert fake.requests[-1]["messages"][0]["content"][0]["text"] == "first line\nsecond line"
    _quit(tmux)

    _start(tmux, lull)
    tmux.send("Up")
    tmux.wait_for("second line")
    tmux.send("Enter")
    tmux.wait_for(lambda s: s.count("(fake) You said: first line") >= 1 and len(fake.requests) == 2)
    assert fake.requests[-1]["messages"][0]["content"][0]["text"] == "first line\nsecond line"
    _quit(tmux)


def test_without_a_provider_it_says_how_to_configure_one(lull: Lull) -> None:
    env = {k: v for k, v in lull.env.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    done = subprocess.run(
        [*lull_command(), "--plain"],
        cwd=lull.workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "no model provider configured" in done.stderr
    assert "ANTHROPIC_API_KEY" in done.stderr and "OPENAI_BASE_URL" in done.stderr
    assert "settings.json" in done.stderr and "model.provider" in done.stderr
