"""Each listed tool checked on its own: what the protocol refuses, what is no JSON Schema."""

from __future__ import annotations

from lull.mcp.listing import protocol_problem, schema_problem


def test_the_protocol_refuses_a_schema_that_is_not_an_object() -> None:
    good = {"name": "a", "inputSchema": {"type": "object", "properties": {}}}
    assert protocol_problem(good, "2025-11-25") is None
    bad = {"name": "b", "inputSchema": {"type": "array"}}
    assert protocol_problem(bad, "2025-11-25") == (
        "its input schema is invalid (inputSchema.type: Input should be 'object')"
    )
    nameless = protocol_problem({"inputSchema": {"type": "object"}}, "2025-11-25")
    assert nameless is not None and nameless.startswith("its entry is invalid (name:")
    assert protocol_problem(bad, "1999-01-01") is None  # a version the SDK does not know


def test_json_schema_catches_what_the_protocol_lets_through() -> None:
    assert schema_problem({"type": "object", "properties": {"x": {"type": "string"}}}) is None
    problem = schema_problem({"type": "object", "properties": {"x": {"type": "strin"}}})
    assert problem is not None and problem.startswith("its input schema is no valid JSON Schema")
    assert problem.endswith("at properties.x.type)")
