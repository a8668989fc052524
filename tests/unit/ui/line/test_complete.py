"""The line mode's completer: the shared candidates, inserted the prompt-toolkit way."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from lull.ui.line.complete import LineCompleter


def _complete(completer: LineCompleter, text: str) -> list[tuple[str, int]]:
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.start_position) for c in found]


def test_the_completer_replaces_just_the_word_being_typed(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("")
    completer = LineCompleter(tmp_path)
    assert _complete(completer, "/he") == [("/help", -3)]
    assert _complete(completer, "look at @no") == [("notes.md", -2)]
    assert _complete(completer, "plain words") == []
    assert _complete(completer, "/context r") == [("restore", -1)]
