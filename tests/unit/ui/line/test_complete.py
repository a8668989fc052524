"""Completion of / commands and @paths."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from app.ui.line.complete import LineCompleter, command_completions, path_completions


def test_commands_complete_with_their_summary() -> None:
    found = dict(command_completions("/co"))
    assert list(found) == ["/context", "/compact", "/cost"]
    assert found["/cost"].startswith("tokens by kind")
    assert command_completions("/context r") == [("restore", "")]
    assert command_completions("hello /co") == []


def test_paths_complete_relative_to_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "src" / "__pycache__").mkdir()
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".env").write_text("")
    assert path_completions(tmp_path, "s") == ["setup.cfg", "src/"]
    assert path_completions(tmp_path, "src/") == ["src/main.py"]
    assert path_completions(tmp_path, "") == ["setup.cfg", "src/"]  # no hidden files
    assert path_completions(tmp_path, ".e") == [".env"]
    assert path_completions(tmp_path, "nowhere/x") == []


def _complete(completer: LineCompleter, text: str) -> list[tuple[str, int]]:
    found = completer.get_completions(Document(text), CompleteEvent(completion_requested=True))
    return [(c.text, c.start_position) for c in found]


def test_the_completer_replaces_just_the_word_being_typed(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("")
    completer = LineCompleter(tmp_path)
    assert _complete(completer, "/he") == [("/help", -3)]
    assert _complete(completer, "look at @no") == [("notes.md", -2)]
    assert _complete(completer, "plain words") == []
