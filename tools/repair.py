"""Argument repair: known model mistakes in tool-call arguments, fixed before validation.

What is repaired (each repair is reported as one short phrase, shown with the call):

- **A JSON object sent as a string**: the whole arguments double-encoded
  (``"{\\"path\\": \\"a\\"}"``), one argument holding the object (``{"input": {...}}`` or
  ``{"arguments": "{...}"}``) while the tool has no such parameter, or a parameter whose
  schema wants an object or array sent as JSON text.
- **Parameter aliases** the tool declares (``file_path`` -> ``path``), only when the real
  name is not given too.
- **Scalars as strings**: ``"12"`` where the schema wants an integer or a number,
  ``"true"``/``"false"`` where it wants a boolean.

Anything still wrong is left for :func:`lull.tools.validation.validate_arguments` to report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lull.model.messages import RAW_ARGUMENTS_KEY

_INTEGER = re.compile(r"\s*[+-]?\d+\s*")
_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*")
_CONTAINERS = {"object": dict, "array": list}


@dataclass(frozen=True, slots=True)
class Repaired:
    """Arguments after repair and what was changed (empty when nothing was)."""

    arguments: Any
    repairs: tuple[str, ...] = ()


def repair_arguments(args: Any, schema: Mapping[str, Any], aliases: Mapping[str, str]) -> Repaired:
    """``args`` with the known mistakes fixed for a tool with this ``schema`` and
    ``aliases``; the input is never modified."""
    repairs: list[str] = []
    value = _decoded_whole(args, repairs)
    if not isinstance(value, Mapping):
        return Repaired(value, tuple(repairs))
    properties: Mapping[str, Any] = schema.get("properties", {})
    fixed = _unwrapped(dict(value), properties, aliases, repairs)
    fixed = _renamed(fixed, properties, aliases, repairs)
    for name, spec in properties.items():
        if name in fixed and isinstance(spec, Mapping):
            fixed[name] = _coerced(name, fixed[name], spec, repairs)
    return Repaired(fixed, tuple(repairs))


def _decoded_whole(args: Any, repairs: list[str]) -> Any:
    """Arguments that arrived as JSON text of an object (twice encoded) as that object."""
    raw = args.get(RAW_ARGUMENTS_KEY) if isinstance(args, Mapping) and len(args) == 1 else None
    text = raw if isinstance(raw, str) else args if isinstance(args, str) else None
    if text is None:
        return args
    decoded = _json_object(text)
    if decoded is None:
        return args
    repairs.append("arguments sent as a JSON string")
    return decoded


def _json_object(text: str) -> dict[str, Any] | None:
    """The object ``text`` encodes, also when it is a JSON string holding the object."""
    value: Any = text
    for _ in range(2):
        if not isinstance(value, str):
            break
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _unwrapped(
    args: dict[str, Any],
    properties: Mapping[str, Any],
    aliases: Mapping[str, str],
    repairs: list[str],
) -> dict[str, Any]:
    """The inner object when the only argument is an unknown key holding the real ones."""
    if len(args) != 1:
        return args
    ((key, inner),) = args.items()
    if key in properties:
        return args
    inner_object = (
        inner
        if isinstance(inner, dict)
        else (_json_object(inner) if isinstance(inner, str) else None)
    )
    if not inner_object or not set(inner_object) & (set(properties) | set(aliases)):
        return args
    repairs.append(f"unwrapped the arguments from {key!r}")
    return dict(inner_object)


def _renamed(
    args: dict[str, Any],
    properties: Mapping[str, Any],
    aliases: Mapping[str, str],
    repairs: list[str],
) -> dict[str, Any]:
    """Aliased argument names replaced by the parameter they stand for."""
    fixed: dict[str, Any] = {}
    for key, value in args.items():
        target = aliases.get(key)
        if key not in properties and target in properties and target not in args:
            assert target is not None
            if target in fixed:
                continue  # two aliases of one parameter: the first wins
            fixed[target] = value
            repairs.append(f"{key} -> {target}")
        else:
            fixed[key] = value
    return fixed


def _coerced(name: str, value: Any, spec: Mapping[str, Any], repairs: list[str]) -> Any:
    """``value`` converted to the schema's type when it is that type written as text."""
    expected = spec.get("type")
    wanted = [expected] if isinstance(expected, str) else list(expected or ())
    if not isinstance(value, str) or not wanted or "string" in wanted:
        return value
    for kind in wanted:
        converted = _from_text(value, kind)
        if converted is not None:
            repairs.append(f"{name}: {kind} sent as a string")
            return converted
    return value


def _from_text(text: str, kind: str) -> Any:
    """The value of JSON type ``kind`` that ``text`` spells, or None."""
    if kind == "integer" and _INTEGER.fullmatch(text):
        return int(text)
    if kind == "number" and _NUMBER.fullmatch(text):
        number = float(text)
        return int(number) if _INTEGER.fullmatch(text) else number
    if kind == "boolean" and text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    container = _CONTAINERS.get(kind)
    if container is not None:
        try:
            decoded = json.loads(text)
        except ValueError:
            return None
        return decoded if isinstance(decoded, container) else None
    return None
