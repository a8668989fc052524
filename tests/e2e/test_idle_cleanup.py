"""Idle cleanup through the real binary: env overrides at fractional minutes (with prompt caching
on: a threshold the user set wins over lull's wait for a cold cache), -p, --resume and
--continue, on both wires."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lull.model.messages import is_cleared_text
from tests.e2e.conftest import Lull
from tests.fakes import FakeServer, Reply, ToolUse

pytestmark = pytest.mark.slow


def _blocks(body: dict, kind: str) -> list[dict]:
    return [
        b
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == kind
    ]


def test_resume_after_an_idle_gap_clears_old_results_and_thinking(
    lull: Lull, fake: FakeServer
) -> None:
    for name in ("a", "b", "c"):
        (lull.workspace / f"{name}.txt").write_text(f"{name} " * 200)
    fake.script(
        *[
            Reply(thinking=f"read {n}", tool_calls=[ToolUse("read_file", {"path": f"{n}.txt"})])
            for n in "abc"
        ],
        Reply(thinking="all read", text="three files read"),
        Reply(text="welcome back"),
    )
    first = lull.run("-p", "read a, b and c", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]

    time.sleep(1.3)  # > 0.02 min: the idle gap, measured from the last API response
    env = {  # prompt caching stays on: the thresholds the user set win over the warm cache
        "LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "0.02",
        "LULL_TOOL_RESULTS_NUM_TO_KEEP": "1",
        "LULL_THINKING_THRESHOLD_MINUTES": "0.02",
    }
    second = lull.run(
        "-p", "anything new?", "--resume", session_id, "--output-format", "json", env=env
    )
    assert second.returncode == 0, second.stderr
    payload = json.loads(second.stdout)
    kinds = [e["kind"] for e in payload["context_edits"]]
    assert kinds == ["clear_tool_results", "clear_thinking"]
    assert payload["context_edits"][0]["description"].startswith("idle cleanup: gap ")

    body = fake.requests[-1]
    results = [b["content"] for b in _blocks(body, "tool_result")]
    texts = [r if isinstance(r, str) else "".join(x["text"] for x in r) for r in results]
    assert is_cleared_text(texts[0]) and is_cleared_text(texts[1])
    assert not is_cleared_text(texts[2]) and "c c c" in texts[2]
    assert _blocks(body, "thinking") == []
    # call ids and arguments are intact: every tool_use still has its result
    uses = _blocks(body, "tool_use")
    assert [u["input"]["path"] for u in uses] == ["a.txt", "b.txt", "c.txt"]
    assert fake.journal[-1].status == 200


def test_invalid_env_override_is_reported_once_and_ignored(lull: Lull, fake: FakeServer) -> None:
    fake.script(Reply(text="fine"))
    done = lull.run("-p", "hi", env={"LULL_TOOL_RESULTS_NUM_TO_KEEP": "2.5"})
    assert done.returncode == 0
    lines = [line for line in done.stderr.splitlines() if "LULL_TOOL_RESULTS_NUM_TO_KEEP" in line]
    assert len(lines) == 1 and "ignored" in lines[0]
    assert done.stdout.strip() == "fine"


def test_debug_log_records_the_cleanup(lull: Lull, fake: FakeServer) -> None:
    (lull.workspace / "a.txt").write_text("x " * 300)
    (lull.workspace / "b.txt").write_text("y " * 300)
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"})]),
        Reply(tool_calls=[ToolUse("read_file", {"path": "b.txt"})]),
        Reply(text="ok"),
        Reply(text="later"),
    )
    assert lull.run("-p", "read").returncode == 0
    time.sleep(0.8)
    env = {"LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "0.01", "LULL_TOOL_RESULTS_NUM_TO_KEEP": "1"}
    done = lull.run("-p", "again", "--continue", "--debug", env=env)
    assert done.returncode == 0, done.stderr
    assert "idle cleanup: gap" in done.stderr and "cleared 1 tool result" in done.stderr
    log = Path(lull.env["XDG_STATE_HOME"]) / "lull" / "debug.log"
    assert "idle cleanup: gap" in log.read_text(encoding="utf-8")


OPENAI = {
    "ANTHROPIC_API_KEY": "",
    "ANTHROPIC_BASE_URL": "",
    "OPENAI_API_KEY": "k",
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_fractional_env_threshold_clears_within_seconds_with_caching_on(
    lull: Lull, fake: FakeServer, wire: str
) -> None:
    (lull.workspace / "a.txt").write_text("x " * 300)
    (lull.workspace / "b.txt").write_text("y " * 300)
    fake.script(
        Reply(tool_calls=[ToolUse("read_file", {"path": "a.txt"})]),
        Reply(tool_calls=[ToolUse("read_file", {"path": "b.txt"})]),
        Reply(text="both read"),
        Reply(text="back"),
    )
    base = {**OPENAI, "OPENAI_BASE_URL": fake.url + "/v1"} if wire == "openai" else {}
    model = ("--model", "local-model") if wire == "openai" else ()
    assert lull.run("-p", "read a and b", *model, env=base).returncode == 0
    time.sleep(7)  # past 0.1 min, well inside the 5-minute cache lifetime
    env = {
        **base,
        "LULL_TOOL_RESULTS_THRESHOLD_MINUTES": "0.1",
        "LULL_TOOL_RESULTS_NUM_TO_KEEP": "0",
    }
    done = lull.run("-p", "anything new?", "--continue", *model, env=env)
    assert done.returncode == 0, done.stderr
    assert "idle cleanup: gap" in done.stderr and "cleared 2 tool result" in done.stderr
    assert "even while the cache is warm" in done.stderr  # its cost, said once
    assert fake.journal[-1].api == wire
    body = json.dumps(fake.requests[-1])
    assert "x x x" not in body and "y y y" not in body
