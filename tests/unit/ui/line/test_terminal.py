"""Input readers: prompt-toolkit's history view, the keys, and plain line reading."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from prompt_toolkit.keys import Keys

from lull.ui.line.terminal import PlainInput, PromptHistory, line_bindings
from lull.ui.shared.history import History


def test_prompt_history_reads_newest_first_and_persists(tmp_path: Path) -> None:
    history = History(tmp_path / "history")
    history.append("older")
    history.append("newer\nwith two lines")
    adapter = PromptHistory(history)
    assert list(adapter.load_history_strings()) == ["newer\nwith two lines", "older"]
    adapter.store_string("newest")
    assert History(tmp_path / "history").entries()[-1] == "newest"


def test_enter_sends_while_esc_enter_and_ctrl_j_add_a_newline() -> None:
    keys = {tuple(binding.keys) for binding in line_bindings().bindings}
    assert keys == {(Keys.ControlM,), (Keys.Escape, Keys.ControlM), (Keys.ControlJ,)}


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_plain_input_reads_lines_until_the_end() -> None:
    out = io.StringIO()
    reader = PlainInput(io.StringIO("first\r\nsecond\n"), out)
    assert await reader.read("> ") == "first"
    assert await reader.read("> ") == "second"
    with pytest.raises(EOFError):
        await reader.read("> ")
    assert out.getvalue() == ""  # no prompts into a pipe or a log


async def test_plain_input_prompts_on_a_terminal_and_echoes_answers_in_a_log() -> None:
    terminal = FakeTerminal()
    assert await PlainInput(io.StringIO("hi\n"), terminal).read("> ") == "hi"
    assert terminal.getvalue() == "> "
    log = io.StringIO()
    assert await PlainInput(io.StringIO("y\n"), log).ask("Allow? ") == "y"
    assert log.getvalue() == "Allow? y\n"
