"""A tiny JSON Schema checker for the subset settings/schema.json uses (no jsonschema dep)."""

from __future__ import annotations

import re
from typing import Any

SUPPORTED = {
    "$schema", "title", "description", "default", "type", "enum", "anyOf", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "pattern", "items",
    "properties", "additionalProperties", "x-lull-project", "required", "propertyNames",
}  # fmt: skip


def _is_type(value: object, name: str) -> bool:
    """JSON Schema's "type" keyword for one type name."""
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return not isinstance(value, bool) and (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        )
    if name == "number":
        return not isinstance(value, bool) and isinstance(value, int | float)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise AssertionError(f"unsupported type {name}")


def _number_ok(schema: dict[str, Any], value: float) -> bool:
    """The range keywords."""
    return not (
        ("minimum" in schema and value < schema["minimum"])
        or ("maximum" in schema and value > schema["maximum"])
        or ("exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"])
        or ("exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"])
    )


def is_valid(schema: dict[str, Any], value: object) -> bool:
    """Whether ``value`` satisfies ``schema`` (only the keywords in SUPPORTED)."""
    unknown = set(schema) - SUPPORTED
    assert not unknown, f"schema uses keywords the test checker does not know: {unknown}"
    if "anyOf" in schema and not any(is_valid(s, value) for s in schema["anyOf"]):
        return False
    if "enum" in schema and not any(type(e) is type(value) and e == value for e in schema["enum"]):
        return False
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, t) for t in types):
            return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_ok(schema, value)
    if isinstance(value, str):
        return len(value) >= schema.get("minLength", 0) and (
            "pattern" not in schema or re.search(schema["pattern"], value) is not None
        )
    if isinstance(value, list) and "items" in schema:
        return all(is_valid(schema["items"], item) for item in value)
    if isinstance(value, dict):
        return _object_ok(schema, value)
    return True


def _object_ok(schema: dict[str, Any], value: dict[str, Any]) -> bool:
    """properties, required, propertyNames and additionalProperties (false or a schema)."""
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    if extra is False and set(value) - set(properties):
        return False
    if any(key not in value for key in schema.get("required", ())):
        return False
    names = schema.get("propertyNames")
    if names is not None and not all(is_valid(names, key) for key in value):
        return False
    if isinstance(extra, dict) and not all(
        is_valid(extra, v) for k, v in value.items() if k not in properties
    ):
        return False
    return all(is_valid(properties[k], v) for k, v in value.items() if k in properties)
