"""Checking a tool call's arguments against the tool's JSON schema (the subset tools use).

Supported: ``type: object`` with ``properties``, ``required`` and
``additionalProperties: false``; property ``type`` (string, integer, number,
boolean, array, object, null, or a list of these) and ``enum``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_JSON_TYPE_NAMES: dict[type, str] = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def json_type_name(value: Any) -> str:
    """The JSON type name of a Python value (``integer`` for 3, ``number`` for 2.5)."""
    for py_type, name in _JSON_TYPE_NAMES.items():
        if isinstance(value, py_type):
            return name
    return type(value).__name__


def _type_ok(value: Any, expected: str) -> bool:
    """True if ``value`` is of JSON type ``expected`` (booleans are not numbers)."""
    actual = json_type_name(value)
    if expected == "number":
        return actual in ("integer", "number")
    if expected == "integer" and actual == "number":
        return float(value).is_integer()
    return actual == expected


def _check_property(name: str, value: Any, schema: Mapping[str, Any]) -> str | None:
    """Why ``value`` does not fit the property schema, or None."""
    expected = schema.get("type")
    if expected is not None:
        allowed = [expected] if isinstance(expected, str) else list(expected)
        if not any(_type_ok(value, t) for t in allowed):
            wanted = " or ".join(allowed)
            return f"argument '{name}' must be {_article(wanted)} (got {json_type_name(value)})"
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(repr(c) for c in schema["enum"])
        return f"argument '{name}' must be one of {choices} (got {value!r})"
    return None


def _article(type_name: str) -> str:
    """``an integer`` / ``a string``."""
    return f"an {type_name}" if type_name[0] in "aeiou" else f"a {type_name}"


def validate_arguments(args: Any, schema: Mapping[str, Any]) -> str | None:
    """Return the first problem with ``args`` under ``schema`` as one line, or None if valid."""
    if not isinstance(args, Mapping):
        return f"arguments must be a JSON object (got {json_type_name(args)})"
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in args:
            return f"missing required argument '{name}'"
    if schema.get("additionalProperties") is False:
        for name in args:
            if name not in properties:
                allowed = ", ".join(properties) or "none"
                return f"unknown argument '{name}' (allowed: {allowed})"
    for name, value in args.items():
        if name in properties:
            problem = _check_property(name, value, properties[name])
            if problem:
                return problem
    return None
