"""@path mentions attach files; completion of /commands and @paths."""

from __future__ import annotations

from pathlib import Path

from app.ui.tui.mentions import (
    command_candidates,
    complete,
    expand_mentions,
    mentioned_paths,
    path_candidates,
)

COMMANDS = {"help": "show the commands", "context": "what the model sees", "cost": "money"}


def test_mentions_are_found_once_each() -> None:
    assert mentioned_paths("see @a.py and @b/c.md, then @a.py; mail x@y.z") == [
        "a.py",
        "b/c.md",
    ]


def test_a_mentioned_file_is_appended_in_a_fence(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    expansion = expand_mentions("look at @a.py, please", tmp_path)
    assert expansion.attached == ["a.py"]
    assert expansion.prompt == "look at @a.py, please\n\nContents of a.py:\n```\nx = 1\n```"


def test_a_fence_inside_the_file_gets_a_longer_fence(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("```sh\nmake\n```\n")
    prompt = expand_mentions("@README.md", tmp_path).prompt
    assert "````\n```sh\nmake\n```\n````" in prompt


def test_missing_binary_and_directory_mentions_are_reported(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "src").mkdir()
    expansion = expand_mentions("@nope @blob.bin @src", tmp_path)
    assert expansion.prompt == "@nope @blob.bin @src"
    assert len(expansion.problems) == 3
    assert "no such file" in expansion.problems[0]
    assert "binary" in expansion.problems[1]
    assert "directory" in expansion.problems[2]


def test_path_candidates_list_directories_first_and_skip_hidden(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "setup.py").write_text("")
    (tmp_path / ".secret").write_text("")
    (tmp_path / "src" / "main.py").write_text("")
    assert path_candidates(tmp_path, "s") == ["src/", "setup.py"]
    assert path_candidates(tmp_path, "src/m") == ["src/main.py"]
    assert path_candidates(tmp_path, ".s") == [".secret"]
    assert path_candidates(tmp_path, "missing/x") == []


def test_complete_offers_commands_only_at_the_start(tmp_path: Path) -> None:
    request = complete("/co", True, tmp_path, COMMANDS)
    assert request is not None and [i.value for i in request.items] == ["/context", "/cost"]
    assert complete("/co", False, tmp_path, COMMANDS) is None
    assert complete("/cost", True, tmp_path, COMMANDS) is None
    assert command_candidates("", COMMANDS)[0] == ("/context", "what the model sees")


def test_complete_offers_paths_after_an_at_sign(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("")
    request = complete("read @no", True, tmp_path, COMMANDS)
    assert request is not None and request.start == 5
    assert [i.value for i in request.items] == ["@notes.md"]
    assert complete("read no", True, tmp_path, COMMANDS) is None
