"""Start-up shared by the front ends: an idle threshold shorter than the prompt-cache lifetime
is said once at start (stderr for -p and line mode; the TUI shows it as a notice, see
tests/tui/test_context.py), not only in /settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lull.runtime import RunOptions
from lull.ui.printer import run_print
from lull.ui.shared.startup import open_runtime

WARNING = (
    "lull: warning: context.clearContextOnIdle.thinkingThresholdMinutes is 0 min, shorter than "
    "the 5 min prompt-cache lifetime"
)


def test_a_threshold_below_the_cache_lifetime_is_warned_about_once_at_start(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LULL_THINKING_THRESHOLD_MINUTES", "0")
    runtime, code = open_runtime(RunOptions(workspace=workspace, demo=True))
    assert runtime is not None and code == 0
    err = capsys.readouterr().err
    assert err.count(WARNING) == 1
    runtime.close()


def test_print_mode_says_it_on_stderr_and_answers_anyway(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LULL_TOOL_RESULTS_THRESHOLD_MINUTES", "2")
    code = run_print(RunOptions(workspace=workspace, demo=True), "hi", "text")
    out, err = capsys.readouterr()
    assert code == 0 and "You said: hi" in out
    assert "toolResultsThresholdMinutes is 2 min, shorter than the 5 min" in err
    assert "warning" not in out


def test_the_defaults_start_without_a_warning(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runtime, _ = open_runtime(RunOptions(workspace=workspace, demo=True))
    assert runtime is not None
    assert "warning" not in capsys.readouterr().err
    runtime.close()


def test_a_hostile_settings_key_is_named_with_its_escapes_shown(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repository's .lull/settings.json may name keys with escape sequences: the warning
    that names them shows the sequences, it does not send them (a window title here)."""
    project = workspace / ".lull" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"x\x1b]0;owned\x07": 1}))
    runtime, code = open_runtime(RunOptions(workspace=workspace, demo=True))
    assert runtime is not None and code == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "unknown setting x␛]0;owned␇" in err
    runtime.close()
