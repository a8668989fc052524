"""Completion candidates: /commands (and their arguments) at the start, @paths anywhere."""

from __future__ import annotations

from pathlib import Path

from lull.ui.shared.completion import command_candidates, command_table, complete, path_candidates

COMMANDS = [("help", "show the commands"), ("context", "what the model sees"), ("cost", "money")]


def test_commands_complete_with_their_summary_in_alphabetical_order() -> None:
    found = dict(command_candidates("co", command_table()))
    assert list(found) == ["/compact", "/context", "/cost"]
    assert found["/cost"].startswith("tokens by kind")
    assert command_candidates("", COMMANDS)[0] == ("/context", "what the model sees")


def test_complete_offers_commands_only_at_the_start(tmp_path: Path) -> None:
    request = complete("/co", True, tmp_path, COMMANDS)
    assert request is not None and [i.value for i in request.items] == ["/context", "/cost"]
    assert complete("/co", False, tmp_path, COMMANDS) is None
    assert complete("/cost", True, tmp_path, COMMANDS) is None
    assert complete("hello /co", True, tmp_path) is None


def test_a_command_argument_completes_from_its_choices(tmp_path: Path) -> None:
    request = complete("/context r", True, tmp_path)
    assert request is not None and request.start == len("/context ")
    assert [(i.value, i.description) for i in request.items] == [("restore", "")]
    assert complete("/context restore", True, tmp_path) is None


def test_complete_offers_paths_after_an_at_sign(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("")
    request = complete("read @no", True, tmp_path, COMMANDS)
    assert request is not None and request.start == 5
    assert [i.value for i in request.items] == ["@notes.md"]
    assert complete("read no", True, tmp_path, COMMANDS) is None


def test_path_candidates_list_directories_first_and_skip_hidden(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "setup.py").write_text("")
    (tmp_path / ".secret").write_text("")
    (tmp_path / "src" / "main.py").write_text("")
    assert path_candidates(tmp_path, "s") == ["src/", "setup.py"]
    assert path_candidates(tmp_path, "src/m") == ["src/main.py"]
    assert path_candidates(tmp_path, ".s") == [".secret"]
    assert path_candidates(tmp_path, "missing/x") == []


def test_paths_complete_relative_to_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "src" / "__pycache__").mkdir()
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".env").write_text("")
    assert path_candidates(tmp_path, "s") == ["src/", "setup.cfg"]
    assert path_candidates(tmp_path, "src/") == ["src/main.py"]
    assert path_candidates(tmp_path, "") == ["src/", "setup.cfg"]  # no hidden files
    assert path_candidates(tmp_path, ".e") == [".env"]
    assert path_candidates(tmp_path, "nowhere/x") == []


def test_custom_commands_complete_beside_the_built_in_ones(tmp_path: Path) -> None:
    folder = tmp_path / ".lull" / "commands" / "frontend"
    folder.mkdir(parents=True)
    (folder / "test.md").write_text("---\ndescription: Run the UI tests\n---\nRun them")
    (tmp_path / ".lull" / "commands" / "review.md").write_text("Review the change")
    request = complete("/fr", True, tmp_path)
    assert request is not None
    assert [(i.value, i.description) for i in request.items] == [
        ("/frontend:test", "Run the UI tests (project)")
    ]
    names = [name for name, _ in command_table(tmp_path)]
    assert names.index("review") > names.index("quit")  # after the built-in ones
    assert "init" in names
