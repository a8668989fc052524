"""The ``mcpServers`` setting: MCP servers by name, in the shape other assistants use.

``{"name": {"command": "npx", "args": [...], "env": {...}, "cwd": "..."}}`` runs a local
server over stdio; ``{"name": {"url": "https://...", "headers": {...}}}`` reaches one over
streamable HTTP (``"type": "sse"`` for the legacy SSE transport; Gemini CLI's ``httpUrl`` is
read as a streamable-HTTP ``url``). Every entry may also set ``enabled``, ``timeoutSeconds``
(starting it), ``toolTimeoutSeconds`` (each call; both default to the global ``mcp.*`` keys;
Gemini CLI's and Qwen Code's ``timeout``, in milliseconds, is read as ``toolTimeoutSeconds``),
``includeTools`` / ``excludeTools``, ``compactable`` and ``alwaysLoad`` (Claude Code's: the
server's tools are never deferred, whatever ``tools.toolSearch`` says). A project's
``.mcp.json`` holds the same object under ``mcpServers``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lull.model.mcp import MCP_TRANSPORTS, McpServerConfig, McpTransport
from lull.settings.checks import Check, Invalid

_KEYS = frozenset(
    {
        "type",
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "httpUrl",
        "headers",
        "enabled",
        "timeoutSeconds",
        "toolTimeoutSeconds",
        "timeout",
        "includeTools",
        "excludeTools",
        "compactable",
        "alwaysLoad",
        "description",
    }
)
_TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")

_TEXT: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": r"\S"}
_URL: dict[str, Any] = {"type": "string", "pattern": "^https?://"}
_SERVER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "anyOf": [
        {"required": ["command"], "properties": {"type": {"enum": ["stdio"]}, "command": _TEXT}},
        {
            "required": ["url"],
            "properties": {"type": {"enum": ["http", "streamable-http", "sse"]}, "url": _URL},
        },
        {
            "required": ["httpUrl"],
            "properties": {"type": {"enum": ["http", "streamable-http", "sse"]}, "httpUrl": _URL},
        },
    ],
    "properties": {
        "type": {"enum": sorted(_TYPES)},
        "command": _TEXT,
        "args": {"type": "array", "items": {"type": "string"}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "cwd": _TEXT,
        "url": _URL,
        "httpUrl": _URL,
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        "enabled": {"type": "boolean"},
        "timeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
        "toolTimeoutSeconds": {"type": "number", "exclusiveMinimum": 0},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
        "includeTools": {"type": "array", "items": {"type": "string"}},
        "excludeTools": {"type": "array", "items": {"type": "string"}},
        "compactable": {"type": "boolean"},
        "alwaysLoad": {"type": "boolean"},
        "description": {"type": "string"},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class McpServers(Check):
    """An object of MCP servers by name; each entry is checked key by key, and the message
    names the server and the key that is wrong."""

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return 'an object of MCP servers ({"NAME": {"command": ...} or {"url": ...}})'

    def accepts(self, value: object) -> object:
        """A tuple of :class:`McpServerConfig`, in the file's order."""
        if not isinstance(value, Mapping):
            raise self.fail()
        return tuple(parse_server(str(name), entry) for name, entry in value.items())

    def value_schema(self) -> dict[str, Any]:
        """An object whose values are server entries."""
        return {
            "type": "object",
            "propertyNames": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
            "additionalProperties": _SERVER_SCHEMA,
        }

    def to_json(self, value: object) -> object:
        """The servers as the settings file writes them."""
        if not isinstance(value, tuple):
            return value
        return {
            server.name: server.to_json() for server in value if isinstance(server, McpServerConfig)
        }


def parse_server(name: str, entry: object) -> McpServerConfig:
    """One ``mcpServers`` entry; raises :class:`Invalid` naming the server and the key."""
    if not name.strip() or not set(name) <= _NAME_CHARS:
        raise Invalid(f"a server name of letters, digits, '_', '-' or '.' (got {name!r})")
    if not isinstance(entry, Mapping):
        raise Invalid(f"an object for server {name!r} (with command or url)")
    unknown = sorted(str(key) for key in entry if key not in _KEYS)
    if unknown:
        raise Invalid(f"known keys in server {name!r}; {', '.join(unknown)} is not one")
    reader = _Entry(name, entry)
    transport = reader.transport()
    config = McpServerConfig(
        name=name,
        transport=transport,
        enabled=reader.boolean("enabled", True),
        timeout_seconds=reader.seconds("timeoutSeconds"),
        tool_timeout_seconds=reader.tool_timeout_seconds(),
        include_tools=reader.strings("includeTools") if "includeTools" in entry else None,
        exclude_tools=reader.strings("excludeTools"),
        compactable=reader.boolean("compactable", False),
        always_load=reader.boolean("alwaysLoad", False),
    )
    if transport == "stdio":
        return dataclasses.replace(
            config,
            command=reader.text("command"),
            args=reader.strings("args"),
            env=reader.pairs("env"),
            cwd=reader.text("cwd") if "cwd" in entry else None,
        )
    url = reader.text("httpUrl" if "httpUrl" in entry and "url" not in entry else "url")
    if not url.startswith(("http://", "https://")):
        raise Invalid(f"an http:// or https:// URL in {name}.url (got {url!r})")
    return dataclasses.replace(config, url=url, headers=reader.pairs("headers"))


class _Entry:
    """Typed reads of one server entry, each failure naming ``<server>.<key>``."""

    def __init__(self, name: str, entry: Mapping[str, Any]) -> None:
        self.name = name
        self.entry = entry

    def _bad(self, key: str, what: str) -> Invalid:
        return Invalid(f"{what} in {self.name}.{key} (got {self.entry.get(key)!r:.60})")

    def transport(self) -> McpTransport:
        kind = self.entry.get("type")
        if kind is not None:
            if kind not in _TYPES:
                raise self._bad("type", f"one of {', '.join(sorted(_TYPES))}")
            transport = _TYPES[kind]
        elif "command" in self.entry:
            transport = "stdio"
        elif "url" in self.entry or "httpUrl" in self.entry:
            transport = "http"
        else:
            raise Invalid(f"a command (stdio) or a url (HTTP) for server {self.name!r}")
        assert transport in MCP_TRANSPORTS
        if transport == "stdio" and "command" not in self.entry:
            raise Invalid(f"a command for the stdio server {self.name!r}")
        return transport  # type: ignore[return-value]

    def text(self, key: str) -> str:
        value = self.entry.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self._bad(key, "a non-empty string")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.entry.get(key, default)
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def seconds(self, key: str) -> float | None:
        if key not in self.entry:
            return None
        value = self.entry[key]
        number = float(value) if isinstance(value, int | float) else math.nan
        if isinstance(value, bool) or not math.isfinite(number) or number <= 0:
            raise self._bad(key, "a number > 0")
        return number

    def tool_timeout_seconds(self) -> float | None:
        """``toolTimeoutSeconds``, else Gemini CLI's / Qwen Code's ``timeout`` (milliseconds)."""
        seconds = self.seconds("toolTimeoutSeconds")
        milliseconds = self.seconds("timeout")
        if seconds is not None or milliseconds is None:
            return seconds
        return milliseconds / 1000

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self._bad(key, "a list of strings")
        return tuple(value)

    def pairs(self, key: str) -> tuple[tuple[str, str], ...]:
        value = self.entry.get(key, {})
        if not isinstance(value, Mapping) or not all(
            isinstance(item, str) for item in value.values()
        ):
            raise self._bad(key, "an object of strings")
        return tuple((str(k), v) for k, v in value.items())
