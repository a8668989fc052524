"""schema.json stays in sync with the dataclass model and the loader's checks."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from lull.settings.checks import Invalid
from lull.settings.fields import FIELDS
from lull.settings.model import Settings
from lull.settings.schema import (
    PROJECT_KEYWORD,
    PROJECT_TABLE_END,
    PROJECT_TABLE_START,
    SCHEMA_PATH,
    build_schema,
    project_table,
    render,
)
from tests.unit.settings.jsonschema_lite import is_valid

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))


def _camel(name: str) -> str:
    """snake_case -> camelCase, independently of lull.settings.fields."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def model_defaults(obj: Any = None, prefix: str = "") -> dict[str, Any]:
    """Every leaf of the dataclass model as dotted camelCase key -> JSON default."""
    obj = Settings() if obj is None else obj
    out: dict[str, Any] = {}
    for field in dataclasses.fields(obj):
        key = prefix + _camel(field.name)
        value = getattr(obj, field.name)
        if dataclasses.is_dataclass(value) and key not in FIELDS:  # a group, not a value
            out.update(model_defaults(value, key + "."))
        else:
            out[key] = FIELDS[key].check.to_json(value)  # an empty tuple: [] or {}
    return out


def schema_leaves(node: dict[str, Any], prefix: str = "") -> dict[str, dict[str, Any]]:
    """Every leaf property of the schema as dotted key -> its schema."""
    out: dict[str, dict[str, Any]] = {}
    for name, child in node["properties"].items():
        if name == "$schema" and not prefix:
            continue
        if child.get("type") == "object" and PROJECT_KEYWORD not in child:
            out.update(schema_leaves(child, f"{prefix}{name}."))
        else:
            out[prefix + name] = child
    return out


def defaults_document(obj: Any = None, prefix: str = "") -> dict[str, Any]:
    """The default settings as a nested JSON document, as a user would write it."""
    obj = Settings() if obj is None else obj
    doc: dict[str, Any] = {}
    for field in dataclasses.fields(obj):
        key = prefix + _camel(field.name)
        value = getattr(obj, field.name)
        if key in FIELDS and dataclasses.is_dataclass(value):  # a value (tools.toolSearch)
            value = FIELDS[key].check.to_json(value)
        elif dataclasses.is_dataclass(value):
            value = defaults_document(value, key + ".")
        elif isinstance(value, tuple):
            value = {} if field.name in ("mcp_servers", "hooks", "env") else list(value)
        doc[_camel(field.name)] = value
    return doc


def test_schema_file_is_the_generated_schema() -> None:
    assert SCHEMA_PATH.read_text("utf-8") == render(), (
        "settings/schema.json is stale: run python -m lull.settings.schema > settings/schema.json"
    )
    assert build_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_keys_and_defaults_match_the_dataclass_model() -> None:
    leaves = schema_leaves(SCHEMA)
    assert {key: leaf["default"] for key, leaf in leaves.items()} == model_defaults()


def test_every_leaf_has_a_type_and_a_description_and_every_object_is_closed() -> None:
    def walk(node: dict[str, Any], where: str) -> None:
        assert node.get("description"), f"{where} has no description"
        if node.get("type") == "object" and PROJECT_KEYWORD in node:  # a map-valued setting
            assert isinstance(node["additionalProperties"], dict), where
        elif node.get("type") == "object":
            assert node["additionalProperties"] is False, where
            for name, child in node["properties"].items():
                walk(child, f"{where}.{name}")
        else:
            assert {"type", "enum", "anyOf"} & set(node), f"{where} has no type"

    walk(SCHEMA, "<root>")


def test_every_default_is_valid_under_the_schema() -> None:
    for key, leaf in schema_leaves(SCHEMA).items():
        assert is_valid(leaf, leaf["default"]), key
    assert is_valid(SCHEMA, {"$schema": "x", **defaults_document()})


def test_schema_rejects_unknown_keys_and_wrong_types() -> None:
    assert not is_valid(SCHEMA, {"modle": {}})
    assert not is_valid(SCHEMA, {"model": {"contextWindow": True}})
    assert not is_valid(SCHEMA, {"context": {"clearContextOnIdle": {"toolResultsNumToKeep": -1}}})
    assert is_valid(SCHEMA, {"context": {"clearContextOnIdle": {"toolResultsNumToKeep": 0}}})
    assert is_valid(SCHEMA, {"context": {"clearContextOnIdle": {"thinkingThresholdMinutes": -1}}})


SAMPLES: st.SearchStrategy[object] = st.sampled_from(
    [0, 0.0, -0.0, 1, 1.0, 0.5, 0.3, 2.5, 5.0, -1, 1023, 1024, 2048.0, "", " ", "x", "yolo",
     "openai", "deepseek", "default", True, False, None, [], ["a"], [""], [1], {}]
)  # fmt: skip
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5000, 5000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
    | SAMPLES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=4,
)


def _loader_accepts(key: str, value: object) -> bool:
    """Whether the loader would take ``value`` for ``key`` from a file."""
    try:
        FIELDS[key].check.check(value)
    except Invalid:
        return False
    return True


LEAVES = schema_leaves(SCHEMA)


@hypothesis_settings(max_examples=80, database=None, deadline=None)
@given(value=JSON)
def test_schema_and_loader_agree_on_every_value(value: object) -> None:
    for key, leaf in LEAVES.items():
        assert is_valid(leaf, value) == _loader_accepts(key, value), (key, value)


def test_every_key_says_what_a_project_file_may_do_with_it() -> None:
    for key, leaf in LEAVES.items():
        rule = FIELDS[key].project
        assert leaf[PROJECT_KEYWORD] == rule, key
        sentence = {"yes": "Project files may set it.", "narrow": "Project files may only narrow",
                    "trusted": "may add entries; they apply only in a workspace the user trusts",
                    "adds": "Project files may add entries: added to yours",
                    "no": "Ignored in project files"}[rule]  # fmt: skip
        assert sentence in leaf["description"], key


def test_the_docs_table_of_project_keys_is_the_generated_one() -> None:
    page = (Path(__file__).parents[3] / "docs" / "configuration.md").read_text("utf-8")
    start = page.index(PROJECT_TABLE_START)
    body = page[page.index("\n", start) + 1 : page.index(PROJECT_TABLE_END)]
    assert body == project_table(), (
        "docs/configuration.md's project settings table is stale: paste the output of "
        "python -m lull.settings.schema --project-table"
    )
