"""MCP tool names and schemas as the providers accept them.

A server's tool ``search.files`` on server ``github`` is offered as
``mcp__github__search_files``: both APIs accept only ``[A-Za-z0-9_-]`` and at most 64
characters in a tool name, so other characters become ``_`` and a long name is cut and given a
short hash of the original (two tools never share a name). Input schemas are adapted to what
the provider rejects: the root must be an object schema (no ``anyOf`` / ``oneOf`` / ``allOf``
at the top for either API; OpenAI also refuses a top-level ``enum`` or ``not``), and the
keywords ``$schema`` / ``$id`` are dropped. Everything here is pure and deterministic, so the
same server gives the same tool block in every request.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from lull.model.mcp import TOOL_PREFIX

MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HASH_CHARS = 8
_COMBINATORS = ("anyOf", "oneOf", "allOf")
_TOP_LEVEL_REFUSED: dict[str, tuple[str, ...]] = {
    "anthropic": _COMBINATORS,
    "openai": (*_COMBINATORS, "enum", "not"),
}
_META_KEYS = ("$schema", "$id")


def tool_name(server: str, tool: str, taken: set[str] | None = None) -> str:
    """The name the model sees for ``tool`` of ``server`` (unique among ``taken``, which it
    joins)."""
    raw = f"{TOOL_PREFIX}{server}__{tool}"
    name = _UNSAFE.sub("_", raw)
    taken = set() if taken is None else taken
    if len(name) > MAX_NAME or name in taken or name != raw:
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
        if len(name) > MAX_NAME or name in taken:
            name = f"{name[: MAX_NAME - _HASH_CHARS - 1]}_{digest}"
    taken.add(name)
    return name


def tool_prefix(server: str) -> str:
    """What every tool name of ``server`` starts with (``mcp__<server>__``, made safe)."""
    return _UNSAFE.sub("_", f"{TOOL_PREFIX}{server}__")


def adapt_schema(schema: Mapping[str, Any] | None, provider: str) -> dict[str, Any]:
    """``schema`` as ``provider`` accepts it for a tool's parameters (a copy)."""
    if not isinstance(schema, Mapping):
        return {"type": "object", "properties": {}}
    adapted = {k: v for k, v in schema.items() if k not in _META_KEYS}
    refused = _TOP_LEVEL_REFUSED.get(provider, _TOP_LEVEL_REFUSED["openai"])
    branches = [b for key in _COMBINATORS if key in refused for b in adapted.pop(key, ()) or ()]
    for key in refused:
        adapted.pop(key, None)
    if adapted.get("type") != "object":
        adapted["type"] = "object"
    properties = dict(adapted.get("properties") or {})
    required = list(adapted.get("required") or [])
    for branch in branches:
        if isinstance(branch, Mapping):
            for name, value in (branch.get("properties") or {}).items():
                properties.setdefault(name, value)
    if branches:
        note = "One of several argument shapes is accepted; see the tool's description."
        adapted.setdefault("description", note)
    adapted["properties"] = properties
    if required:
        adapted["required"] = [name for name in required if name in properties]
    return adapted
