from __future__ import annotations

from lull.tools.validation import json_type_name, validate_arguments

SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer"},
        "x": {"type": "number"},
        "flag": {"type": "boolean"},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "maybe": {"type": ["string", "null"]},
    },
    "required": [],
    "additionalProperties": False,
}


def test_valid_arguments_pass() -> None:
    args = {"n": 3, "x": 1.5, "flag": False, "kind": "a", "maybe": None}
    assert validate_arguments(args, SCHEMA) is None


def test_integral_float_counts_as_integer_and_int_as_number() -> None:
    assert validate_arguments({"n": 3.0, "x": 2}, SCHEMA) is None
    assert validate_arguments({"n": 2.5}, SCHEMA) == (
        "argument 'n' must be an integer (got number)"
    )


def test_enum_and_union_types() -> None:
    assert validate_arguments({"kind": "c"}, SCHEMA) == (
        "argument 'kind' must be one of 'a', 'b' (got 'c')"
    )
    assert validate_arguments({"maybe": 1}, SCHEMA) == (
        "argument 'maybe' must be a string or null (got integer)"
    )


def test_json_type_names() -> None:
    values: list[object] = ["s", True, 1, 1.0, [], {}, None]
    assert [json_type_name(v) for v in values] == [
        "string", "boolean", "integer", "number", "array", "object", "null",
    ]  # fmt: skip
