"""Tool-call argument parsing and the invalid-JSON policy."""

from __future__ import annotations

from lull.providers.arguments import arguments_json, parse_arguments, raw_arguments


def test_parse_valid_and_empty() -> None:
    assert parse_arguments('{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}
    assert parse_arguments("") == {}
    assert parse_arguments("  ") == {}


def test_invalid_or_non_object_json_is_kept_raw() -> None:
    for text in ('{"a": ', "[1, 2]", "nope", '"str"'):
        parsed = parse_arguments(text)
        assert parsed == {"_raw": text}
        assert raw_arguments(parsed) == text
        assert arguments_json(parsed) == text


def test_normal_arguments_are_not_raw() -> None:
    assert raw_arguments({"_raw": "x", "other": 1}) is None
    assert raw_arguments({"path": "a"}) is None
    assert arguments_json({"path": "ä", "n": 2}) == '{"path": "ä", "n": 2}'
