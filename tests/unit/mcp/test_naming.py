"""Tool names and schemas adapted to what the providers accept."""

from __future__ import annotations

import re

from lull.mcp.naming import adapt_schema, tool_name

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_names_are_prefixed_sanitised_short_and_unique() -> None:
    taken: set[str] = set()
    assert tool_name("github", "create_issue", taken) == "mcp__github__create_issue"
    dotted = tool_name("github", "search.files", taken)
    assert dotted == "mcp__github__search_files" and VALID.match(dotted)
    clash = tool_name("github", "search_files", taken)
    assert clash != dotted and VALID.match(clash)
    long = tool_name("server", "x" * 80, taken)
    assert len(long) == 64 and VALID.match(long)
    assert tool_name("server", "x" * 80) == long  # deterministic


def test_top_level_combinators_are_folded_into_one_object_schema() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "anyOf": [
            {"type": "object", "properties": {"query": {"type": "string"}}},
            {"type": "object", "properties": {"glob": {"type": "string"}}},
        ],
    }
    for provider in ("anthropic", "openai"):
        adapted = adapt_schema(schema, provider)
        assert adapted["type"] == "object" and "anyOf" not in adapted and "$schema" not in adapted
        assert set(adapted["properties"]) == {"query", "glob"}


def test_openai_also_refuses_a_top_level_enum_and_missing_schemas_become_objects() -> None:
    assert "enum" not in adapt_schema({"type": "object", "enum": [{}]}, "openai")
    assert adapt_schema(None, "anthropic") == {"type": "object", "properties": {}}
    kept = adapt_schema(
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a", "b"]},
        "anthropic",
    )
    assert kept["required"] == ["a"]
