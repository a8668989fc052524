"""The schema generator (tools/params.py): each supported type, optional and default fields,
Literal enums, lists, descriptions, the typed value a call gets, and a clear TypeError for
what it does not support, raised when a tool's class is defined."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

import pytest

from lull.tools.base import ToolContext, ToolOutput, TypedTool
from lull.tools.params import doc, param_names, params_schema, parse_params
from lull.tools.registry import ToolRegistry
from lull.tools.validation import validate_arguments


@dataclass(frozen=True, slots=True)
class Everything:
    name: str = field(metadata=doc("A name."))
    count: int = field(metadata=doc("How many."))
    ratio: float = field(default=0.5, metadata=doc("A share."))
    loud: bool = False
    mode: Literal["fast", "slow"] = field(default="fast", metadata=doc("How."))
    level: Literal[1, 2, 3] = 1
    tags: list[str] = field(default_factory=list, metadata=doc("Labels."))
    sizes: list[int] = field(default_factory=list)
    where: str | None = field(default=None, metadata=doc("Where, if anywhere."))
    old_style: Optional[int] = None  # noqa: UP045 - typing.Optional is a union too


def test_each_supported_type_becomes_its_json_schema_in_field_order() -> None:
    schema = params_schema(Everything)
    assert json.dumps(schema) == json.dumps(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "A name."},
                "count": {"type": "integer", "description": "How many."},
                "ratio": {"type": "number", "description": "A share."},
                "loud": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["fast", "slow"], "description": "How."},
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
                "sizes": {"type": "array", "items": {"type": "integer"}},
                "where": {"type": "string", "description": "Where, if anywhere."},
                "old_style": {"type": "integer"},
            },
            "required": ["name", "count"],
            "additionalProperties": False,
        }
    )


def test_fields_without_a_default_are_required_and_an_empty_list_is_kept() -> None:
    @dataclass(frozen=True)
    class NoneRequired:
        path: str = "."

    assert params_schema(NoneRequired)["required"] == []
    assert param_names(Everything)[:3] == ("name", "count", "ratio")


def test_an_open_schema_and_enums_known_only_at_run_time() -> None:
    schema = params_schema(Everything, closed=False, enums={"where": ["here", "there"]})
    assert "additionalProperties" not in schema
    assert list(schema["properties"]["where"]) == ["type", "enum", "description"]
    assert schema["properties"]["where"]["enum"] == ["here", "there"]
    with pytest.raises(TypeError, match="no field nowhere"):
        params_schema(Everything, enums={"nowhere": ["x"]})
    with pytest.raises(TypeError, match="plain str fields"):
        params_schema(Everything, enums={"mode": ["x"]})


def test_every_schema_is_a_fresh_copy() -> None:
    first = params_schema(Everything)
    first["properties"]["tags"]["items"]["type"] = "number"
    assert params_schema(Everything)["properties"]["tags"]["items"] == {"type": "string"}


def test_the_generated_schema_is_what_the_validator_checks() -> None:
    schema = params_schema(Everything)
    assert validate_arguments({"name": "a", "count": 2, "mode": "slow"}, schema) is None
    assert validate_arguments({"name": "a"}, schema) == "missing required argument 'count'"
    assert validate_arguments({"name": "a", "count": 1, "mode": "medium"}, schema) == (
        "argument 'mode' must be one of 'fast', 'slow' (got 'medium')"
    )
    assert validate_arguments({"name": "a", "count": 1, "where": None}, schema) == (
        "argument 'where' must be a string (got null)"
    )
    assert validate_arguments({"name": "a", "count": 1, "extra": 1}, schema) is not None


def test_parse_gives_the_typed_value_with_defaults_and_numbers_converted() -> None:
    value = parse_params(Everything, {"name": "a", "count": 3.0, "ratio": 2, "tags": ("x",)})
    assert value == Everything(name="a", count=3, ratio=2.0, tags=["x"])
    assert isinstance(value.count, int) and isinstance(value.ratio, float)
    assert value.where is None and value.mode == "fast" and value.sizes == []


def test_parse_ignores_unknown_arguments_and_names_a_missing_one() -> None:
    assert parse_params(Everything, {"name": "a", "count": 1, "other": 2}).count == 1
    with pytest.raises(TypeError, match="missing required argument 'count'"):
        parse_params(Everything, {"name": "a"})


@pytest.mark.parametrize(
    ("hint", "message"),
    [
        (dict[str, str], r"type dict\[str, str\] is not supported"),
        (tuple[str, ...], "is not supported"),
        (list[list[str]], "a list holds one of str, int, float, bool"),
        (str | int, r"the only union is X \| None"),
        (str | int | None, r"the only union is X \| None"),
        (Literal["a", 1], "a Literal holds strings or integers"),
        (Literal[True], "a Literal holds strings or integers"),
        (Path, "type <class 'pathlib.Path'> is not supported"),
    ],
)
def test_an_unsupported_type_is_a_clear_type_error(hint: Any, message: str) -> None:
    @dataclass(frozen=True)
    class Odd:
        value: Any

    Odd.__annotations__["value"] = hint
    with pytest.raises(TypeError, match=rf"Odd\.value: .*{message}"):
        params_schema(Odd)


def test_an_optional_field_needs_the_default_none() -> None:
    @dataclass(frozen=True)
    class NoDefault:
        value: str | None

    @dataclass(frozen=True)
    class OtherDefault:
        value: str | None = "x"

    for params in (NoDefault, OtherDefault):
        with pytest.raises(TypeError, match=r"an X \| None field needs the default None"):
            params_schema(params)


def test_only_frozen_dataclasses_and_str_descriptions() -> None:
    @dataclass
    class Mutable:
        value: str

    @dataclass(frozen=True)
    class BadDoc:
        value: str = field(metadata={"description": 3})

    with pytest.raises(TypeError, match="Mutable must be a frozen dataclass"):
        params_schema(Mutable)
    with pytest.raises(TypeError, match="must be a dataclass"):
        params_schema(dict)
    with pytest.raises(TypeError, match=r"BadDoc\.value: the description must be a str"):
        params_schema(BadDoc)


@dataclass(frozen=True, slots=True)
class GreetParams:
    who: str = field(metadata=doc("Whom to greet."))
    times: int = 1


class GreetTool(TypedTool[GreetParams]):
    name = "greet"
    params = GreetParams
    aliases: Mapping[str, str] = {"name": "who"}
    fingerprint_keys = ("who",)

    async def call(self, params: GreetParams, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(" ".join([f"hello {params.who}"] * params.times))


def test_a_typed_tool_gets_its_schema_from_its_params() -> None:
    assert GreetTool.parameters == params_schema(GreetParams)


async def test_a_typed_tool_runs_through_repair_and_validation(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, output_dir=tmp_path / "out")
    registry = ToolRegistry([GreetTool()])
    assert (await registry.execute("greet", {"name": "you", "times": "2"}, ctx)).content == (
        "hello you hello you"
    )
    refused = await registry.execute("greet", {"times": 1}, ctx)
    assert refused.is_error and refused.content == "greet: missing required argument 'who'"


def test_aliases_and_fingerprint_keys_must_name_fields() -> None:
    with pytest.raises(TypeError, match="Stray: whom is no field of GreetParams"):

        class Stray(TypedTool[GreetParams]):
            params = GreetParams
            aliases: Mapping[str, str] = {"name": "whom"}

            async def call(self, params: GreetParams, ctx: ToolContext) -> ToolOutput:
                return ToolOutput("")


def test_an_unsupported_type_fails_when_the_tool_class_is_defined() -> None:
    @dataclass(frozen=True)
    class Bad:
        when: dict[str, Any]

    with pytest.raises(TypeError, match=r"Bad\.when: type"):

        class BadTool(TypedTool[Bad]):
            params = Bad

            async def call(self, params: Bad, ctx: ToolContext) -> ToolOutput:
                return ToolOutput("")
