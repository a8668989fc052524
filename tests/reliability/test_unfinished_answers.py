"""``-p`` fails loudly when a turn did not end with an answer (the output token limit,
``maxTurns``, nothing said): one line on stderr, ``is_error`` in JSON, exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import FakeServer, Reply, ToolUse
from tests.reliability.helpers import (
    print_mode,
)


@pytest.mark.parametrize(
    ("replies", "options", "subtype", "says"),
    [
        (  # cut, and still cut after the three continuations
            [Reply(text=f"part {n} of a long", stop_reason="max_tokens") for n in range(4)],
            {},
            "error_max_tokens",
            "output token limit",
        ),
        (
            [Reply(tool_calls=[ToolUse("list_directory", {})])],
            {"max_turns": 1},
            "error_max_turns",
            "maxTurns",
        ),
        ([Reply(text="")] * 6, {}, "error_rollbacks", "rolled back 5 times in a row"),
    ],
)
def test_p_reports_an_unfinished_answer_as_an_error(
    replies: list[Reply],
    options: dict[str, Any],
    subtype: str,
    says: str,
    anthropic_env: FakeServer,
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    anthropic_env.script(*replies)
    code, out, err = print_mode(capsys, workspace, "json", **options)
    payload = json.loads(out)
    assert code == 1
    assert payload["is_error"] is True and payload["lull_subtype"] == subtype
    claude = subtype if subtype == "error_max_turns" else "error_during_execution"
    assert payload["subtype"] == claude  # Claude Code's three subtypes
    assert says in payload["error"]
    errors = [line for line in err.splitlines() if line.startswith("lull: error:")]
    assert len(errors) == 1 and says in errors[0]

    anthropic_env.script(*replies)
    code, out, err = print_mode(capsys, workspace, "text", **options)
    assert code == 1 and says in err.splitlines()[-1]
    # claude-sonnet-4-6 takes no prefill: each cut answer was asked again with a larger limit
    kept = replies[-1].text if subtype == "error_max_tokens" else ""
    assert out.strip() == kept  # a cut answer is still shown, as what it is


def test_p_success_is_still_success(
    anthropic_env: FakeServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.script(Reply(text="done"))
    code, out, err = print_mode(capsys, workspace, "json")
    payload = json.loads(out)
    assert (code, payload["is_error"], payload["subtype"], payload["error"]) == (
        0,
        False,
        "success",
        None,
    )
    assert "error" not in err
