"""Dispatching slash commands: help, prefixes, one-line hints for bad input, quitting.

Against a real agent: the official SDK and the strict fake server, saved sessions.
"""

from __future__ import annotations

import pytest

from lull.commands import COMMANDS, command_names, run_command
from lull.runtime import Runtime
from tests.unit.commands.support import text_of


def test_help_lists_every_visible_command_with_its_usage(runtime: Runtime) -> None:
    text = text_of(run_command(runtime, "/help"))
    for name in ("help", "clear", "resume", "model", "context", "compact", "cost", "settings"):
        assert f"/{name}" in text
    assert "/quit" in text and "/exit" not in text
    assert [c.name for c in command_names()][:2] == ["help", "clear"]


def test_help_says_lull_can_be_tried_without_a_key(runtime: Runtime) -> None:
    lines = run_command(runtime, "/help").lines
    assert lines[-2:] == (
        "",
        "no API key? `lull --demo` tries lull with a built-in scripted model (no network)",
    )


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("/contxt", "unknown command /contxt; did you mean /context? type /help for the list"),
        ("/zzz", "unknown command /zzz; type /help for the list"),
        ("/c", "/c is ambiguous: /clear, /context, /compact, /cost"),
        ("/", "type a command after /, e.g. /help"),
        ("/cost extra", "/cost takes no argument (got 'extra')"),
        (
            "/context bogus",
            "unknown /context argument 'bogus'; try /context or /context restore "
            "[clears|compression|rewind]",
        ),
        ("/model two words", "a model name has no spaces (got 'two words'); usage: /model NAME"),
        ("/clear now", "/clear takes no argument (got 'now')"),
        ("/settings nosuch", "no setting starts with 'nosuch'; try /settings or /settings model"),
    ],
)
def test_bad_input_gets_a_one_line_hint(runtime: Runtime, typed: str, expected: str) -> None:
    result = run_command(runtime, typed)
    assert result.error and result.lines == (expected,)
    assert not result.quit and result.stream is None


def test_a_unique_prefix_and_any_case_run_the_command(runtime: Runtime) -> None:
    assert run_command(runtime, "/QUIT").quit
    assert run_command(runtime, "/mod").lines[0].startswith("model: claude-test")
    assert run_command(runtime, "/exit").quit


def test_quit_and_exit_leave(runtime: Runtime) -> None:
    assert run_command(runtime, "/quit").quit
    assert "quit" in COMMANDS and COMMANDS["exit"].hidden
