"""Reading one settings file: missing, empty, broken, or not an object."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.settings.jsonfile import FileProblem, read_json_object


def test_missing_file_is_none(tmp_path: Path) -> None:
    assert read_json_object(tmp_path / "settings.json") is None


def test_object_with_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'\xef\xbb\xbf{"maxTurns": 3}')
    assert read_json_object(path) == {"maxTurns": 3}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": 1,\n "b": // two\n 2}', ":2:7: invalid JSON: Expecting value "
         "(comments are not allowed in JSON); this file is ignored"),
        ('{"a": [1, 2,]}', ":1:13: invalid JSON: Expecting value (trailing comma?); "
         "this file is ignored"),
        ('{"a": 1} {"b": 2}', ":1:10: invalid JSON: Extra data; this file is ignored"),
        ('"text"', ": expected a JSON object at the top level, got a string; this file is ignored"),
        ("null", ": expected a JSON object at the top level, got null; this file is ignored"),
    ],
)  # fmt: skip
def test_broken_file_is_one_clear_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, "utf-8")
    with pytest.raises(FileProblem) as caught:
        read_json_object(path)
    assert str(caught.value) == f"{path}{problem}"


def test_directory_and_non_utf8_file_are_reported(tmp_path: Path) -> None:
    with pytest.raises(FileProblem, match="is a directory, not a settings file; ignored"):
        read_json_object(tmp_path)
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"model": {"name": "caf\xe9"}}')
    with pytest.raises(FileProblem, match=r"not UTF-8 text \(bad byte at offset 23\)"):
        read_json_object(path)


def test_pathological_json_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"maxTurns": ' + "9" * 5000 + "}", "utf-8")
    with pytest.raises(FileProblem, match=r"invalid JSON: .*; this file is ignored$"):
        read_json_object(path)
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(FileProblem, match="invalid JSON: nested too deeply; this file is ignored"):
        read_json_object(path)
