"""Starting the line mode without a provider: a clear message, how to configure, exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lull.command_line import parse_command_line
from lull.ui.line import run_line


def test_no_provider_explains_the_variables_and_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = parse_command_line(["--plain"], cwd=tmp_path).run
    assert run_line(options) == 1
    err = capsys.readouterr().err
    assert err.startswith("lull: error: no model provider configured")
    for needed in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "settings.json"):
        assert needed in err
    assert "model.provider" in err
    assert "lull --demo" in err, "the way to try lull without a key"


def test_a_missing_session_is_one_line_without_setup_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    options = parse_command_line(["--plain", "--resume", "nosuchsession"], cwd=tmp_path)
    assert run_line(options.run) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no saved session 'nosuchsession'" in err[0]


def test_the_line_mode_never_imports_textual() -> None:
    probe = (
        "import sys, lull.ui.line, lull.ui.line.terminal, lull.ui.line.complete;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    root = Path(__file__).resolve().parents[4]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
