"""Folding a -p run's events into its result: the kept answer and how the run ended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lull.engine.sessions.load import load_session
from lull.engine.sessions.store import SessionStore
from lull.model.events import (
    AssistantText,
    AttemptDiscarded,
    Event,
    RequestFinished,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from lull.model.provider import Usage
from lull.runtime import RunOptions
from lull.settings.paths import sessions_dir
from lull.ui.headless.extras import extra_line
from lull.ui.printer import Limits, RunResult, run_print
from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes.script import last_user_text


def folded(*events: Event) -> RunResult:
    result = RunResult(limits=Limits(max_turns=3, max_output_tokens=1000))
    for event in (TurnStarted("hi"), *events):
        result.take(event)
    return result


def done() -> RequestFinished:
    return RequestFinished(Usage(input=10, output=5), 1, 100, model="house-model")


def test_a_discarded_attempt_is_never_part_of_the_answer() -> None:
    result = folded(
        AssistantText("half an ans"),
        AttemptDiscarded("half an ans", "the stream was cut"),
        AssistantText("Let me look."),
        done(),
        AssistantText("again half"),
        AttemptDiscarded("again half", "the stream was cut"),
        TurnFailed("the stream was cut again", "stream_cut"),
    )
    assert result.answer == "Let me look." and result.discarded == 2
    assert result.verdict().subtype == "error"


@pytest.mark.parametrize(
    ("final", "subtype", "says"),
    [
        (TurnFinished("all done", "end_turn"), "success", None),
        (TurnFinished("half of it", "max_tokens"), "error_max_tokens", "1,000 tokens"),
        (TurnFinished("", "max_turns"), "error_max_turns", "after 3 model requests"),
        (TurnFinished("  ", "end_turn"), "error_empty", "answered nothing"),
    ],
)
def test_how_the_turn_ended_decides_the_verdict(
    final: TurnFinished, subtype: str, says: str | None
) -> None:
    verdict = folded(AssistantText(final.text), done(), final).verdict()
    assert verdict.subtype == subtype
    if says is None:
        assert verdict.error is None
    else:
        assert verdict.error is not None and says in verdict.error


def test_an_unpriced_local_model_costs_nothing_in_the_result_and_the_stream() -> None:
    result = RunResult(local=True)
    result.take(done())
    assert result.cost_usd == 0.0
    assert RunResult().cost_usd == 0.0  # before any request
    elsewhere = RunResult()
    elsewhere.take(done())
    assert elsewhere.cost_usd is None
    assert extra_line(done(), "s", local=True)["cost_usd"] == 0.0


def test_a_local_model_whose_server_reports_no_usage_still_costs_nothing() -> None:
    unreported = RequestFinished(Usage(reported=False), 1, 100, model="house-model")
    result = RunResult(local=True)
    result.take(unreported)
    assert result.cost_usd == 0.0
    assert extra_line(unreported, "s", local=True)["cost_usd"] == 0.0
    elsewhere = RunResult()  # a remote server that says nothing: unknown, not free
    elsewhere.take(unreported)
    assert elsewhere.cost_usd is None
    # a local server answering under an API model's name is still free; priced by the user
    # (a proxy to a paid API), unreported usage is unknown
    known = RequestFinished(Usage(reported=False), 1, 100, model="claude-sonnet-4-5")
    assert extra_line(known, "s", local=True)["cost_usd"] == 0.0
    proxy = ("claude-sonnet-4-5=3/15",)
    assert extra_line(known, "s", proxy, local=True)["cost_usd"] is None


def test_a_discard_is_one_of_lulls_own_stream_json_lines() -> None:
    assert extra_line(AttemptDiscarded("half", "cut"), "s") == {
        "type": "lull",
        "subtype": "discarded",
        "session_id": "s",
        "text": "half",
        "reason": "cut",
    }


# --- -p with guardrails: fresh attempts, the fallback answer, the counts --------------------

SUMMARY = (
    "Failure type: incomplete\nWhat happened: listed the files and ran out of steps.\n"
    "Useful findings: the code is in src/calc.py."
)


@pytest.fixture
def anthropic_env(fake: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    return fake


def print_json(
    capsys: pytest.CaptureFixture[str], workspace: Path, **options: Any
) -> tuple[int, dict[str, Any], str]:
    code = run_print(RunOptions(workspace=workspace, **options), "fix calc", "json")
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_a_second_attempt_starts_fresh_with_the_failure_summary(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(
        Reply(tool_calls=[ToolUse("glob", {"pattern": "*.py"})]),
        Reply(text=SUMMARY),
        Reply(text="Fixed src/calc.py."),
    )
    code, payload, _ = print_json(capsys, workspace, max_turns=1, max_attempts=2)
    assert code == 0 and payload["subtype"] == "success"
    assert payload["result"] == "Fixed src/calc.py."
    first, second = payload["attempts"]
    assert (first["attempt"], first["outcome"], first["failure_type"]) == (
        1,
        "max_turns",
        "incomplete",
    )
    assert "src/calc.py" in first["summary"]
    assert (second["outcome"], second["failure_type"]) == ("answered", None)
    assert first["session_id"] != second["session_id"] == payload["session_id"]
    assert payload["guardrails"]["retried_attempts"] == 1 and payload["num_requests"] == 3

    summary_request, fresh = anthropic_env.requests[1], anthropic_env.requests[2]
    assert summary_request["tool_choice"] == {"type": "none"}
    assert "Do NOT call any tools" in last_user_text(summary_request)
    assert len(fresh["messages"]) == 1
    prompt = last_user_text(fresh)
    assert prompt.startswith("fix calc") and "=== Previous attempts ===" in prompt
    assert "Useful findings: the code is in src/calc.py." in prompt
    assert "This is the last attempt" in prompt

    store = SessionStore(sessions_dir(), workspace)
    failed = load_session(store.find(first["session_id"]))
    assert [m.role for m in failed.messages] == ["user", "assistant", "user"]  # resumable
    assert all("failure report" not in m.text for m in failed.messages)


def test_the_last_answer_text_of_any_attempt_is_the_fallback(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    glob = ToolUse("glob", {"pattern": "*.py"})
    anthropic_env.script(
        Reply(text="The bug is the minus sign; checking.", tool_calls=[glob]),
        Reply(text=SUMMARY),
        Reply(tool_calls=[ToolUse("glob", {"pattern": "src/*.py"})]),
    )
    code, payload, err = print_json(capsys, workspace, max_turns=1, max_attempts=2)
    assert code == 1 and payload["is_error"] is True
    assert (payload["subtype"], payload["lull_subtype"]) == ("error_during_execution", "fallback")
    assert payload["result"] == "The bug is the minus sign; checking."
    assert [a["outcome"] for a in payload["attempts"]] == ["max_turns", "max_turns"]
    assert "ended without a final answer" in payload["error"]
    assert err.strip().splitlines()[-1].startswith("lull: error: 2 attempts ended")


def test_guardrail_notices_go_to_stderr_and_the_json_counts(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(Reply(text="<tool_call>{}</tool_call>"), Reply(text="done"))
    code = run_print(RunOptions(workspace=workspace), "go", "text")
    out, err = capsys.readouterr()
    assert code == 0 and out.strip() == "done"
    assert "lull: rolled back the model's reply (a tool call written as text" in err
    anthropic_env.script(Reply(text=""), Reply(text="done"))
    code, payload, _ = print_json(capsys, workspace)
    assert payload["guardrails"]["rollbacks"] == 1
    assert payload["guardrails"]["rollback_reasons"] == {"empty": 1}
    assert [a["outcome"] for a in payload["attempts"]] == ["answered"]


def test_stream_json_carries_guardrail_and_attempt_events(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(Reply(text="I cannot help with that."), Reply(text="ok"))
    run_print(RunOptions(workspace=workspace), "go", "stream-json")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [line.get("subtype") for line in lines if line["type"] == "lull"]
    assert "attempt_start" in kinds and "attempt" in kinds
    [guard] = [line for line in lines if line.get("subtype") == "guardrail"]
    assert (guard["kind"], guard["reason"]) == ("rollback", "refusal")
