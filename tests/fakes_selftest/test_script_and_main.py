"""Script parsing, the default/demo responders, and ``python -m tests.fakes``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.fakes import FakeServer, Reply, ToolUse, demo_reply
from tests.fakes.__main__ import load_script
from tests.fakes_selftest.conftest import MODEL, user

ROOT = Path(__file__).resolve().parents[2]


def test_load_script_builds_replies(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    data = [{"text": "hi"}, {"thinking": "t", "tool_calls": [{"name": "glob", "arguments": {}}]}]
    path.write_text(json.dumps(data))
    replies = load_script(path)
    assert replies[0] == Reply(text="hi")
    assert replies[1].thinking == "t" and replies[1].tool_calls == [ToolUse("glob", {})]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"text": "x"}', "must be a JSON list"),
        ('[{"txt": "x"}]', "entry [0]: unknown key(s) ['txt']"),
        ("[{", "r.json:1:3: invalid JSON"),
        ('[{"tool_calls": [{"arguments": {}}]}]', "entry [0].tool_calls[0]"),
    ],
)
def test_load_script_errors_name_the_place(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(ValueError) as info:
        load_script(path)
    assert needle in str(info.value)


def test_demo_lists_files_then_summarises(fake: FakeServer, anthropic_client: Any) -> None:
    fake.default_reply = demo_reply()
    first = anthropic_client.messages.create(
        model=MODEL, max_tokens=100, messages=[user("please list files")]
    )
    call = next(b for b in first.content if b.type == "tool_use")
    assert call.name == "list_directory"
    result = {"type": "tool_result", "tool_use_id": call.id, "content": "a.py\nb.py"}
    history = [
        user("please list files"),
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [result]},
    ]
    second = anthropic_client.messages.create(model=MODEL, max_tokens=100, messages=history)
    assert "2 entries" in second.content[0].text and "b.py" in second.content[0].text


def test_module_prints_env_lines_and_serves(tmp_path: Path) -> None:
    script = tmp_path / "r.json"
    script.write_text('[{"text": "scripted"}]')
    command = [sys.executable, "-m", "tests.fakes", "--port", "0", "--script", str(script)]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            lines = [proc.stdout.readline() for _ in range(5)]
            url = lines[1].strip().removeprefix("ANTHROPIC_BASE_URL=")
            assert url.startswith("http://127.0.0.1:")
            assert lines[3].strip() == f"OPENAI_BASE_URL={url}/v1"
            body = {"model": MODEL, "max_tokens": 10, "messages": [user("x")]}
            response = httpx2.post(url + "/v1/messages", json=body, headers={"x-api-key": "k"})
            assert response.json()["content"][0]["text"] == "scripted"
        finally:
            proc.terminate()
            proc.wait(timeout=5)


def test_bad_script_exits_with_one_line_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text("[1]")
    command = [sys.executable, "-m", "tests.fakes", "--port", "0", "--script", str(script)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=20)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: ") and "entry [0]" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_chunk_delay_slows_a_stream_down(fake: FakeServer, anthropic_client: Any) -> None:
    import time

    fake.script(Reply(text="x" * 40, chunk_size=8, chunk_delay=0.05))
    started = time.monotonic()
    with anthropic_client.messages.stream(
        model="claude-sonnet-5", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        text = "".join(stream.text_stream)
    assert text == "x" * 40
    assert time.monotonic() - started >= 0.25  # at least five text frames, each followed by a pause


def test_a_fake_in_its_own_process_keeps_its_journal_out_of_collections(
    fake: FakeServer, anthropic_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("frozen"))
    anthropic_client.messages.create(model=MODEL, max_tokens=10, messages=[user("inside")])
    assert frozen == []  # a fake inside a test leaves the collector alone
    fake.freeze_journal = True  # as ``python -m tests.fakes`` sets it
    anthropic_client.messages.create(model=MODEL, max_tokens=10, messages=[user("own")])
    assert frozen == ["frozen"]
    assert len(fake.journal) == 2
