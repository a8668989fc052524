"""A tool's parameters as one frozen dataclass, and the JSON schema generated from it.

Each field is one argument, in the order the model sees them; its description is the
field's ``metadata`` (:func:`doc`); a field with a default (or default factory) may be left
out, one without is required::

    @dataclass(frozen=True, slots=True)
    class ReadFileParams:
        path: str = field(metadata=doc("File to read (relative to the workspace)."))
        offset: int = field(default=1, metadata=doc("1-based line number to start from."))

gives ``{"type": "object", "properties": {"path": {"type": "string", "description": …},
"offset": {"type": "integer", "description": …}}, "required": ["path"],
"additionalProperties": false}``.

Field types, all within what :mod:`lull.tools.validation` checks: ``str``, ``int``,
``float``, ``bool``; ``Literal[...]`` of strings or of integers (an ``enum``); ``list[X]`` of
one of the four scalars (an ``array`` with ``items``); and ``X | None`` with the default
None for an argument that may be left out and is then None (the schema shows ``X``: a model
sending null is refused, as before). Anything else is a :class:`TypeError` when the schema is
first made, which for a tool is when its class is defined.

:func:`parse_params` turns validated arguments into the dataclass: an integral number
becomes an ``int`` for an ``int`` field, an integer a ``float`` for a ``float`` field.
"""

from __future__ import annotations

import copy
import dataclasses
import types
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

DESCRIPTION = "description"
"""The ``metadata`` key of a field's description."""

P = TypeVar("P")

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SCALAR_NAMES = "str, int, float, bool"
_SUPPORTED = f"{_SCALAR_NAMES}, Literal[...], list[<one of those four>], or X | None"


def doc(text: str) -> dict[str, str]:
    """A field's ``metadata`` that describes the argument to the model."""
    return {DESCRIPTION: text}


@dataclasses.dataclass(frozen=True, slots=True)
class _Param:
    """One field as an argument: its name, its property schema (without description), its
    description, whether it is required, and its JSON type."""

    name: str
    schema: Mapping[str, Any]
    description: str | None
    required: bool
    json_type: str


_KNOWN: dict[type[Any], tuple[_Param, ...]] = {}


def params_schema(
    params: type[Any],
    *,
    closed: bool = True,
    enums: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The JSON schema of the arguments ``params`` (a frozen dataclass) describes.

    ``closed=False`` leaves out ``additionalProperties: false`` (arguments not named are then
    accepted and ignored). ``enums`` gives a string field choices known only when the tool is
    made (the ``task`` tool's agent kinds), in the place a ``Literal`` puts them.
    """
    fields = _params_of(params)
    extra = dict(enums or {})
    unknown = set(extra) - {param.name for param in fields}
    if unknown:
        raise TypeError(f"{params.__name__} has no field {', '.join(sorted(unknown))} for enums")
    properties: dict[str, Any] = {}
    for param in fields:
        prop = copy.deepcopy(dict(param.schema))
        if param.name in extra:
            if param.json_type != "string" or "enum" in prop:
                raise TypeError(f"{params.__name__}.{param.name}: enums are for plain str fields")
            prop["enum"] = list(extra[param.name])
        if param.description is not None:
            prop[DESCRIPTION] = param.description
        properties[param.name] = prop
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [param.name for param in fields if param.required],
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def parse_params(params: type[P], args: Mapping[str, Any]) -> P:
    """``args``, already valid under :func:`params_schema`, as a ``params`` value; arguments
    the dataclass does not name are ignored. TypeError when a required one is missing."""
    values: dict[str, Any] = {}
    for param in _params_of(params):
        if param.name in args:
            values[param.name] = _converted(args[param.name], param.json_type)
        elif param.required:
            raise TypeError(f"{params.__name__}: missing required argument {param.name!r}")
    return params(**values)


def param_names(params: type[Any]) -> tuple[str, ...]:
    """The argument names ``params`` declares, in order."""
    return tuple(param.name for param in _params_of(params))


def _converted(value: Any, json_type: str) -> Any:
    """A validated JSON value as the field's Python type (numbers and arrays)."""
    if json_type == "integer" and isinstance(value, float):
        return int(value)
    if json_type == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if json_type == "array" and isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return value


def _params_of(params: type[Any]) -> tuple[_Param, ...]:
    """The fields of ``params`` as arguments (worked out once per class)."""
    found = _KNOWN.get(params)
    if found is None:
        found = _KNOWN[params] = _read_params(params)
    return found


def _read_params(params: type[Any]) -> tuple[_Param, ...]:
    """The fields of ``params`` as arguments; TypeError for anything unsupported."""
    settings = getattr(params, "__dataclass_params__", None)
    if not isinstance(params, type) or settings is None:
        raise TypeError(f"tool parameters must be a dataclass, not {params!r}")
    if not settings.frozen:
        raise TypeError(f"{params.__name__} must be a frozen dataclass")
    hints = get_type_hints(params)
    found: list[_Param] = []
    for item in dataclasses.fields(params):
        where = f"{params.__name__}.{item.name}"
        has_default = (
            item.default is not dataclasses.MISSING
            or item.default_factory is not dataclasses.MISSING
        )
        hint = _without_none(hints[item.name], where, item.default)
        schema, json_type = _property(hint, where)
        description = item.metadata.get(DESCRIPTION)
        if description is not None and not isinstance(description, str):
            raise TypeError(f"{where}: the description must be a str")
        found.append(_Param(item.name, schema, description, not has_default, json_type))
    return tuple(found)


def _without_none(hint: Any, where: str, default: Any) -> Any:
    """``X`` for ``X | None`` (which needs the default None), else ``hint`` itself."""
    if get_origin(hint) not in (Union, types.UnionType):
        return hint
    rest = [arg for arg in get_args(hint) if arg is not type(None)]
    if len(rest) != 1 or len(rest) == len(get_args(hint)):
        raise TypeError(f"{where}: {hint} is not supported; the only union is X | None")
    if default is not None:
        raise TypeError(f"{where}: an X | None field needs the default None")
    return rest[0]


def _property(hint: Any, where: str) -> tuple[dict[str, Any], str]:
    """The property schema (type, items, enum) of one field's type, and its JSON type."""
    origin = get_origin(hint)
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}, _SCALARS[hint]
    if origin is Literal:
        values = get_args(hint)
        kinds = {type(value) for value in values}
        if kinds not in ({str}, {int}):
            raise TypeError(f"{where}: a Literal holds strings or integers, not {hint}")
        json_type = _SCALARS[kinds.pop()]
        return {"type": json_type, "enum": list(values)}, json_type
    if origin is list:
        (item,) = get_args(hint)
        if item not in _SCALARS:
            raise TypeError(
                f"{where}: {hint} is not supported: a list holds one of {_SCALAR_NAMES}"
            )
        return {"type": "array", "items": {"type": _SCALARS[item]}}, "array"
    raise TypeError(f"{where}: type {hint} is not supported (use {_SUPPORTED})")
