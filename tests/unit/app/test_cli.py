"""The command line: help answers without heavy imports; flags map to settings keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lull.command_line import build_parser, parse_command_line, render_help_module, rendered_help
from lull.help_text import HELP
from lull.runtime import RunOptions, cli_overrides
from lull.version import DISTRIBUTION, version

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


@pytest.mark.parametrize("flag", ["--help", "-h", "--version", "-v"])
def test_help_and_version_import_next_to_nothing(flag: str) -> None:
    """Answered before the parser, the SDKs, the UI or even the vocabulary are imported."""
    root = Path(__file__).resolve().parents[3]
    probe = PROBE.replace('"--help"', repr(flag))
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY]
    assert heavy == []
    assert not {"argparse", "importlib.metadata", "lull.model", "lull.command_line"} & set(loaded)
    assert done.stdout.startswith("usage: lull" if "h" in flag else "lull ")


def test_the_help_answered_at_once_is_the_parsers_own() -> None:
    """``lull.help_text`` is generated; this fails when the parser changes and it does not
    (regenerate: ``.venv/bin/python -m lull.command_line > app/help_text.py``, then
    ``ruff format app/help_text.py``)."""
    assert rendered_help() == HELP
    assert HELP.startswith("usage: lull") and "--approval-mode" in HELP
    assert render_help_module() != ""


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
    from importlib import metadata

    # the fast answer reads the metadata folder's name: the same as the metadata API
    assert capsys.readouterr().out == f"lull {metadata.version(DISTRIBUTION)}\n"
    assert version() == metadata.version(DISTRIBUTION)


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


def test_add_dir_repeats_and_reaches_the_settings_as_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    monkeypatch.chdir(tmp_path)
    line = parse_command_line(["--add-dir", "one", "--add-dir", str(tmp_path / "two")])
    wanted = [str((tmp_path / "one").resolve()), str((tmp_path / "two").resolve())]
    assert cli_overrides(line.run)["permissions.additionalDirectories"] == wanted


def test_add_dir_of_no_directory_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_command_line(["--add-dir", "nowhere"], cwd=tmp_path)
    assert exit_info.value.code == 2
    assert "--add-dir: nowhere is not a directory" in capsys.readouterr().err
