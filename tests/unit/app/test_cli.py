"""The command line: help answers without heavy imports; flags map to settings keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lull.cli import build_parser, parse_command_line
from lull.runtime import RunOptions, cli_overrides

HEAVY = ("anthropic", "openai", "textual", "tiktoken", "prompt_toolkit", "pydantic", "httpx2")

PROBE = """
import json, sys
from lull.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_help_imports_no_sdk_ui_or_tokenizer() -> None:
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY]
    assert heavy == []
    assert "usage: lull" in done.stdout


def test_help_lists_the_contract_flags() -> None:
    text = build_parser().format_help()
    for flag in (
        "-p",
        "--output-format",
        "--resume",
        "--continue",
        "--model",
        "--provider",
        "--base-url",
        "--approval-mode",
        "--debug",
        "--plain",
    ):
        assert flag in text


def test_flags_become_settings_overrides(tmp_path: Path) -> None:
    options = RunOptions(workspace=tmp_path, model="m", approval_mode="yolo", max_turns=3)
    assert cli_overrides(options) == {
        "model.name": "m",
        "tools.approvalMode": "yolo",
        "maxTurns": 3,
    }


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("lull ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-r", " "], "argument -r/--resume: expected a session id, got an empty string"),
        (["--fork-session"], "--fork-session needs --continue or --resume ID"),
    ],
)
def test_bad_session_flags_exit_2_with_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_command_line(argv, cwd=tmp_path)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]


def test_fork_session_with_resume_reaches_the_run_options(tmp_path: Path) -> None:
    line = parse_command_line(["-r", " abc ", "--fork-session"], cwd=tmp_path)
    assert (line.run.resume, line.run.fork_session) == ("abc", True)


def test_max_attempts_and_excluded_tools_reach_the_settings(tmp_path: Path) -> None:
    line = parse_command_line(
        ["-p", "fix it", "--max-attempts", "3", "--exclude-tools", "web_fetch, glob"], cwd=tmp_path
    )
    assert line.run.max_attempts == 3 and line.run.exclude_tools == ("web_fetch", "glob")
    overrides = cli_overrides(line.run)
    assert overrides["guardrails.maxAttempts"] == 3
    assert overrides["tools.exclude"] == ("web_fetch", "glob")
    assert "--max-attempts" in build_parser().format_help()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-attempts", "2"], "--max-attempts needs -p/--print"),
        (["-p", "x", "--max-attempts", "0"], "expected a positive integer, got '0'"),
        (["-p", "x", "--exclude-tools", " , "], "expected tool names separated by commas"),
    ],
)
def test_bad_guardrail_flags_exit_2_with_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_command_line(argv, cwd=tmp_path)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]
