"""``lull -p`` as a user runs it: output formats, exit codes, errors, approvals, resume."""

from __future__ import annotations

import json
import re
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lull.catalog.prompt import STATIC_SYSTEM_PROMPT
from lull.settings.paths import user_settings_path
from tests.e2e.conftest import Lull
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.script import last_user_text

pytestmark = pytest.mark.slow


def test_text_output_prints_the_answer(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="Hello from the fake."))
    done = lull.run("-p", "say hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello from the fake."
    assert "Traceback" not in done.stderr


HOSTILE = "a\x1b]52;c;aGk=\x07b \x1b]0;owned\x07 c\x1b[2J d\x9b2J\tt\r\nline two\rover"
"""Model text with a clipboard write (OSC 52), a window title (OSC 0), a clear screen (CSI 2J,
also as the one-character C1 CSI), a tab, a CRLF and a carriage return inside a line."""
SHOWN = "a␛]52;c;aGk=␇b ␛]0;owned␇ c␛[2J d␛[2J\tt\r\nline two␍over"


def _controls(text: str) -> set[str]:
    """The control characters in ``text`` a terminal would obey (a newline, a tab and the
    carriage return of a CRLF are not counted)."""
    text = text.replace("\r\n", "\n")
    return {c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F}


def test_text_output_shows_escape_sequences_instead_of_sending_them(
    lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(text=HOSTILE))
    done = lull.run_bytes("-p", "say it")
    assert done.returncode == 0, done.stderr
    stdout = done.stdout.decode()
    assert _controls(stdout) == set() and stdout == SHOWN + "\n"
    fake.fail_next(status=400, retry_after_ms=None, message="bad \x1b]0;owned\x07 request")
    failed = lull.run_bytes("-p", "again")
    assert failed.returncode == 1
    stderr = failed.stderr.decode()
    assert _controls(stderr) == set() and "bad ␛]0;owned␇ request" in stderr


def test_json_output_keeps_escape_sequences_exact_inside_json_strings(
    lull: Lull, fake: FakeServer
) -> None:
    for output_format in ("json", "stream-json"):
        fake.script(Reply(text=HOSTILE))
        done = lull.run("-p", "say it", "--output-format", output_format)
        assert done.returncode == 0, done.stderr
        assert _controls(done.stdout) == set()
        last = json.loads(done.stdout.splitlines()[-1])
        assert last["result"] == HOSTILE


def _priced_like_the_api() -> None:
    """The loopback fake is "a local server", where models cost $0 unless the user's
    ``pricing`` prices them: price the default model at Anthropic's rates."""
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pricing": ["claude-sonnet-4-6=3/15"]}))


def test_json_output_carries_session_usage_and_counts(lull: Lull, fake: FakeServer) -> None:
    _priced_like_the_api()
    (lull.workspace / "a.txt").write_text("alpha\n")
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"})]), Reply(text="It says alpha.")
    )
    done = lull.run("-p", "what is in a.txt?", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["result"] == "It says alpha."
    assert payload["num_requests"] == 2
    assert set(payload["lull_usage"]) == {
        "input",
        "output",
        "cache_read",
        "cache_write",
        "reasoning",
    }
    served = [e.usage for e in fake.journal if e.status == 200 and e.usage is not None]
    assert len(served) == 2
    read = sum(u["cache_read_input_tokens"] for u in served)  # what the server says it billed
    written = sum(u["cache_creation_input_tokens"] for u in served)
    fresh = sum(u["input_tokens"] for u in served)
    output = sum(u["output_tokens"] for u in served)
    assert payload["lull_usage"] == {
        "input": fresh,
        "cache_read": read,
        "cache_write": written,
        "output": output,
        "reasoning": 0,
    }
    assert payload["usage"] == {  # Claude Code's names, the Messages API's counts
        "input_tokens": fresh,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
        "output_tokens": output,
    }
    assert 0 < read < fresh + written + read  # the second request read what the first wrote
    assert payload["cache_hit_ratio"] == pytest.approx(read / (fresh + written + read), abs=1e-4)
    assert payload["usage"]["output_tokens"] > 0
    assert payload["session_id"] and payload["duration_ms"] >= 0
    assert payload["is_error"] is False and payload["context_edits"] == []
    assert payload["cost_usd"] == payload["total_cost_usd"] > 0  # the user priced the model
    [(name, read)] = payload["tools"].items()
    assert name == "read_file" and read["seconds"] >= 0
    assert {k: v for k, v in read.items() if k != "seconds"} == {
        "calls": 1,
        "failures": 0,
        "output_tokens": read["output_tokens"],
        "cleared": 0,
        "recalled": 0,
        "pointers": 0,
    } and read["output_tokens"] > 0
    fake.script(Reply(text="ok"))
    unpriced = lull.run("-p", "again", "--output-format", "json", "--model", "house-model")
    assert json.loads(unpriced.stdout)["cost_usd"] == 0.0  # unpriced, on a loopback server


def test_stream_json_prints_one_event_per_line(lull: Lull, fake: FakeServer) -> None:
    _priced_like_the_api()
    fake.script(Reply(text="streamed words here"))
    done = lull.run("-p", "stream", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "system" and events[-1]["type"] == "result"
    [said] = [e for e in events if e["type"] == "assistant"]
    assert said["message"]["content"] == [{"type": "text", "text": "streamed words here"}]
    [usage] = [e for e in events if e.get("subtype") == "request"]
    assert usage["type"] == "lull" and usage["model"] == "claude-sonnet-4-6"
    assert usage["purpose"] == "turn"
    assert usage["cost_usd"] == events[-1]["total_cost_usd"] > 0
    assert usage["cache_hit_ratio"] == 0.0  # the first request writes the cache


def test_piped_stdin_is_added_to_the_prompt(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="ok"))
    done = lull.run("-p", "explain this log", stdin="ERROR: disk full\n")
    assert done.returncode == 0, done.stderr
    sent = fake.requests[-1]["messages"][-1]["content"]
    text = sent if isinstance(sent, str) else "".join(b.get("text", "") for b in sent)
    assert "explain this log" in text and "disk full" in text


def test_a_huge_piped_prompt_is_saved_for_the_model_to_read_in_parts(
    lull: Lull, fake: FakeServer
) -> None:
    settings = lull.workspace / ".lull" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"context": {"promptOffloadThreshold": 0.01}}))  # 2,000
    log = "".join(f"12:00:{n % 60:02d} job {n} ok\n" for n in range(2_000))  # ~12,000 tokens

    def read_the_file(body: Mapping[str, Any]) -> Reply:
        path = re.search(r"saved in full to (\S+) \(", last_user_text(body))
        assert path is not None
        return Reply(tool_calls=[ToolUse("read_file", {"path": path[1], "limit": 3})])

    fake.script(Reply(respond=read_the_file), Reply(text="All jobs are fine."))
    done = lull.run("-p", "anything wrong here?", "--output-format", "json", stdin=log)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    offloaded = payload["prompt_offloaded"]
    assert offloaded["tokens"] > offloaded["limit"] == 2_000
    assert f"saved to {offloaded['path']}" in done.stderr
    assert Path(offloaded["path"]).read_text() == "anything wrong here?\n\n" + log
    first = last_user_text(fake.requests[0])
    assert len(first) < 5_000 and "job 0 ok" in first and "job 1999 ok" in first
    result = fake.requests[1]["messages"][-1]["content"][0]
    assert "anything wrong here?" in result["content"] and not result.get("is_error")
    assert payload["result"] == "All jobs are fine."


def test_default_mode_denies_writes_without_hanging(lull: Lull, fake: FakeServer) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("write_file", {"path": "new.txt", "content": "x"})]),
        Reply(text="I could not write."),
    )
    done = lull.run("-p", "write new.txt")
    assert done.returncode == 0
    assert not (lull.workspace / "new.txt").exists()
    results = [
        b
        for m in fake.requests[-1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert results[0]["is_error"] and "--approval-mode" in str(results[0]["content"])


def test_yolo_mode_lets_the_model_write(lull: Lull, fake: FakeServer) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("write_file", {"path": "new.txt", "content": "x\n"})]),
        Reply(text="written"),
    )
    done = lull.run("-p", "write new.txt", "--approval-mode", "yolo")
    assert done.returncode == 0, done.stderr
    assert (lull.workspace / "new.txt").read_text() == "x\n"


def test_resume_and_continue_carry_the_history(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="first answer"), Reply(text="second answer"), Reply(text="third"))
    first = json.loads(lull.run("-p", "remember 42", "--output-format", "json").stdout)
    resumed = lull.run(
        "-p", "what number?", "--resume", first["session_id"][:8], "--output-format", "json"
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["session_id"] == first["session_id"]
    # a quick resume sends the same system blocks, environment included: the cache still hits
    assert fake.requests[1]["system"] == fake.requests[0]["system"]
    texts = json.dumps(fake.requests[1]["messages"])
    assert "remember 42" in texts and "first answer" in texts
    cont = lull.run("-p", "and again", "--continue")
    assert cont.returncode == 0, cont.stderr
    assert "what number?" in json.dumps(fake.requests[2]["messages"])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--approval-mode", "sometimes"], "--approval-mode"),
        (["--output-format", "xml"], "--output-format"),
        (["--max-turns", "0"], "--max-turns"),
        (["--resume", "x", "--continue"], "--continue"),
        (["--bogus"], "--bogus"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(lull: Lull, args: list[str], needle: str) -> None:
    done = lull.run("-p", "hi", *args)
    assert done.returncode == 2
    assert needle in done.stderr and "Traceback" not in done.stderr


def test_missing_key_is_one_clear_line(lull: Lull) -> None:
    env = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": ""}
    done = lull.run("-p", "hi", env=env)
    assert done.returncode == 1
    assert "ANTHROPIC_API_KEY" in done.stderr and "OPENAI_API_KEY" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_rejected_key(lull: Lull, fake: FakeServer) -> None:
    fake.api_key = "the-right-key"
    done = lull.run("-p", "hi")
    assert done.returncode == 1
    assert "ANTHROPIC_API_KEY" in done.stderr and "Traceback" not in done.stderr


def test_unknown_model(lull: Lull, fake: FakeServer) -> None:
    fake.models = {"claude-real"}
    done = lull.run("-p", "hi", "--model", "claude-imaginary")
    assert done.returncode == 1
    assert "claude-imaginary" in done.stderr and "Traceback" not in done.stderr


def test_unreachable_server(lull: Lull) -> None:
    done = lull.run("-p", "hi", env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert done.returncode == 1
    assert "could not reach" in done.stderr and "Traceback" not in done.stderr


def test_overloaded_after_retries(lull: Lull, fake: FakeServer) -> None:
    fake.fail_next(status=529, retry_after_ms=10, times=5)
    done = lull.run("-p", "hi")
    assert done.returncode == 1
    assert "overloaded" in done.stderr.lower() and "Traceback" not in done.stderr


def test_openai_compatible_server_via_env(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="hi from openai"))
    env = {
        "ANTHROPIC_API_KEY": "",
        "ANTHROPIC_BASE_URL": "",
        "OPENAI_BASE_URL": fake.url + "/v1",
        "OPENAI_API_KEY": "k",
    }
    done = lull.run("-p", "hi", "--model", "local-model", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hi from openai"
    assert fake.journal[-1].api == "openai"


def test_broken_settings_file_is_reported_and_ignored(lull: Lull, fake: FakeServer) -> None:
    (lull.workspace / ".lull").mkdir()
    (lull.workspace / ".lull" / "settings.json").write_text('{\n  "model": {"name": "x",}\n}\n')
    fake.script(Reply(text="still running"))
    done = lull.run("-p", "hi")
    assert done.returncode == 0, done.stderr
    assert "settings.json:2:" in done.stderr
    assert done.stdout.strip() == "still running"


def test_ctrl_c_leaves_a_resumable_session(lull: Lull, fake: FakeServer) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "sleep 20"})]),
        Reply(text="resumed fine"),
    )
    proc = lull.popen(
        "-p", "run something slow", "--approval-mode", "yolo", "--output-format", "stream-json"
    )
    assert proc.stdout is not None
    session_id = ""
    deadline = time.monotonic() + 20
    for line in proc.stdout:
        event = json.loads(line)
        session_id = session_id or event.get("session_id", "")
        content = event.get("message", {}).get("content", [])
        calls = [block for block in content if block.get("type") == "tool_use"]
        if (event["type"] == "assistant" and calls) or time.monotonic() > deadline:
            break
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=20)
    assert proc.returncode != 0
    done = lull.run("-p", "go on", "--resume", session_id)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "resumed fine"
    messages = fake.requests[-1]["messages"]
    results = [
        b
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 1 and "Cancelled" in str(results[0]["content"])


def test_static_system_prompt_is_byte_identical_across_processes(
    lull: Lull, fake: FakeServer
) -> None:
    (lull.workspace / "AGENTS.md").write_text("Always answer in haiku.\n")
    fake.script(Reply(text="one"), Reply(text="two"))
    assert lull.run("-p", "first").returncode == 0
    assert lull.run("-p", "second").returncode == 0
    first, second = fake.requests[0]["system"], fake.requests[1]["system"]
    assert first[0]["text"] == second[0]["text"]
    assert "Always answer in haiku." in first[-1]["text"]
    assert first[0]["text"] == STATIC_SYSTEM_PROMPT


def test_prompt_caching_can_be_turned_off_from_the_environment(
    lull: Lull, fake: FakeServer
) -> None:
    fake.script(Reply(text="cached"), Reply(text="uncached"))
    assert lull.run("-p", "first").returncode == 0
    done = lull.run("-p", "second", "--output-format", "json", env={"LULL_PROMPT_CACHING": "0"})
    assert done.returncode == 0, done.stderr
    marked, unmarked = (json.dumps(body) for body in fake.requests)
    assert "cache_control" in marked and "cache_control" not in unmarked
    usage = json.loads(done.stdout)["usage"]
    assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0
    assert usage["input_tokens"] > 0


def test_demo_mode_needs_no_key_and_lists_files(lull: Lull, fake: FakeServer) -> None:
    (lull.workspace / "notes.md").write_text("x\n")
    env = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": ""}
    done = lull.run("--demo", "-p", "list files", "--output-format", "json", env=env)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["result"].startswith("(demo) list_directory says:")
    assert "notes.md" in payload["result"] and payload["num_requests"] == 2
    assert fake.requests == []  # nothing went to a provider
