"""Start-up shared by the front ends: an idle threshold shorter than the prompt-cache lifetime
is said once at start (stderr for -p and line mode; the TUI shows it as a notice, see
tests/tui/test_context.py), not only in /settings."""

from __future__ import annotations

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
