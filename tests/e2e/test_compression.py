"""Compression through the real binary: a small model.contextWindow, -p json, --resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lull.context.compress_prompt import SUMMARY_MARKER
from lull.context.view import SUMMARY_PREFIX
from lull.engine.sessions.load import load_session
from tests.e2e.conftest import Lull
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.script import last_user_text
from tests.support import summary_of

pytestmark = pytest.mark.slow

WINDOW = 12_000
SUMMARY = summary_of("Read the files.", "Answer the user.")
ROWS = "".join(f"row {i}: some content of the file\n" for i in range(120))


class Model:
    """Reads ``reads`` files one by one, then answers; writes a summary when asked."""

    def __init__(self, reads: int) -> None:
        self.reads, self.step, self.summaries = reads, 0, 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        if SUMMARY_MARKER in last_user_text(body):
            self.summaries += 1
            return Reply(text=SUMMARY)
        self.step += 1
        if self.step <= self.reads:
            return Reply(tool_calls=[ToolUse("read_file", {"path": f"f{self.step:02d}.txt"})])
        self.step = 0
        return Reply(text="all read")


@pytest.fixture
def project(lull: Lull, fake: FakeServer) -> Model:
    for index in range(1, 30):
        (lull.workspace / f"f{index:02d}.txt").write_text(f"file {index}\n{ROWS}")
    (lull.workspace / ".lull").mkdir()
    settings = {"model": {"contextWindow": WINDOW}, "context": {"compression": {"threshold": 0.6}}}
    (lull.workspace / ".lull" / "settings.json").write_text(json.dumps(settings))
    fake.max_context_tokens = WINDOW
    model = Model(reads=12)
    fake.default_reply = Reply(respond=model)
    return model


def test_a_long_task_is_compressed_and_reported_in_json(
    lull: Lull, fake: FakeServer, project: Model, isolated_env: Path
) -> None:
    done = lull.run("-p", "read the files", "--approval-mode", "yolo", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["result"] == "all read"
    summaries = [e for e in payload["context_edits"] if e["kind"] == "summary"]
    assert summaries and project.summaries == len(summaries)
    assert summaries[0]["description"].startswith("compressed context: summarised ")
    assert summaries[0]["tokens_after"] < summaries[0]["tokens_before"]
    assert payload["num_requests"] == 13 + project.summaries
    assert all(entry.status == 200 for entry in fake.journal)  # never over the window

    sessions = list((isolated_env / "data" / "lull" / "sessions").rglob("*.jsonl"))
    record = load_session(sessions[0])
    outputs = [r.content for m in record.messages for r in m.tool_results]
    assert len(outputs) == 12 and all("row 100:" in o for o in outputs)  # originals kept

    project.reads = 0  # answers at once (and still writes summaries if asked)
    again = lull.run("-p", "status?", "--resume", payload["session_id"], "--output-format", "json")
    assert again.returncode == 0, again.stderr
    first = fake.requests[-1]["messages"][0]["content"]
    text = first if isinstance(first, str) else first[0]["text"]
    assert text.startswith(SUMMARY_PREFIX) and SUMMARY in text  # resume keeps the summary
