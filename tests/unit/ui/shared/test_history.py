"""Input history: kept across sessions, multi-line entries intact, capped, never fatal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lull.ui.shared.history import History, decode_line, encode_entry


def test_entries_survive_a_restart_in_order(tmp_path: Path) -> None:
    path = tmp_path / "state" / "history"
    first = History(path)
    for entry in ("one", "two", "three"):
        first.append(entry)
    assert History(path).entries() == ["one", "two", "three"]


def test_multi_line_and_quoted_entries_round_trip_one_line_each(tmp_path: Path) -> None:
    path = tmp_path / "history"
    entries = ["line one\nline two", '"quoted" at the start', "tab\tand \\ backslash", "crlf\r\n"]
    history = History(path)
    for entry in entries:
        history.append(entry)
    assert History(path).entries() == entries
    assert len(path.read_text().splitlines()) == len(entries)


def test_default_location_is_the_state_dir(isolated_env: Path) -> None:
    history = History()
    history.append("hello")
    assert (isolated_env / "state" / "lull" / "history").read_text() == "hello\n"


def test_blank_entries_and_immediate_repeats_are_skipped(tmp_path: Path) -> None:
    history = History(tmp_path / "history")
    for entry in ("same", "same", "   ", "", "other", "same"):
        history.append(entry)
    assert history.entries() == ["same", "other", "same"]


def test_the_file_is_capped_to_the_newest_entries(tmp_path: Path) -> None:
    path = tmp_path / "history"
    history = History(path, cap=5)
    for number in range(12):
        history.append(f"entry {number}")
    expected = [f"entry {n}" for n in range(7, 12)]
    assert history.entries() == expected
    assert History(path, cap=5).entries() == expected
    assert len(path.read_text().splitlines()) <= 6  # rewritten once it passed the cap


def test_an_oversized_file_loads_only_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text("".join(f"old {n}\n" for n in range(50)))
    assert History(path, cap=3).entries() == ["old 47", "old 48", "old 49"]


def test_an_unreadable_history_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.mkdir()  # a directory where the file should be: unreadable and unwritable
    history = History(path)
    assert history.entries() == []
    history.append("still works in memory")
    assert history.entries() == ["still works in memory"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text("secret\n")
    path.chmod(0)
    assert History(path).entries() == []


def test_garbage_lines_are_kept_as_text(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_bytes(b'"unterminated\n\xff\xfe binary\nplain\n')
    entries = History(path).entries()
    assert entries[0] == '"unterminated' and entries[-1] == "plain" and len(entries) == 3


def test_encoding_is_plain_for_ordinary_lines() -> None:
    assert encode_entry("git status") == "git status"
    assert decode_line(encode_entry("a\nb")) == "a\nb"
    assert "\n" not in encode_entry("a\nb")
