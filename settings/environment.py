"""The ``env`` setting (Claude Code's key): environment variables for the session, e.g.
``{"ANTHROPIC_BASE_URL": "http://127.0.0.1:4000", "BASH_DEFAULT_TIMEOUT_MS": "120000"}``.

They apply to the model provider's configuration and to every process lull starts (commands,
hooks, MCP servers). Only the user's own files may set them: a variable such as ``PATH`` or
``LD_PRELOAD`` decides what code runs, so a project's ``env`` is refused with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lull.settings.checks import Check, Invalid

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class EnvVariables(Check):
    """An object of variable names and string values (numbers and booleans are written as
    text, as a shell would hold them)."""

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return 'an object of environment variables ({"NAME": "value"})'

    def accepts(self, value: object) -> object:
        """A tuple of ``(name, value)`` pairs, in the file's order."""
        if isinstance(value, tuple):
            return value
        if not isinstance(value, Mapping):
            raise self.fail()
        pairs: list[tuple[str, str]] = []
        for name, raw in value.items():
            if not isinstance(name, str) or not _NAME.fullmatch(name):
                raise Invalid(f"variable names of letters, digits and _ ({name!r} is not one)")
            if isinstance(raw, bool):
                raw = "true" if raw else "false"
            if not isinstance(raw, str | int | float) or "\0" in str(raw):
                raise Invalid(f"a string value without NUL for {name}")
            pairs.append((name, str(raw)))
        return tuple(pairs)

    def value_schema(self) -> dict[str, Any]:
        """An object of strings."""
        return {
            "type": "object",
            "propertyNames": {"pattern": f"^{_NAME.pattern}$"},
            "additionalProperties": {
                "anyOf": [
                    {"type": "string", "pattern": "^[^\\u0000]*$"},
                    {"type": ["number", "boolean"]},
                ]
            },
        }

    def to_json(self, value: object) -> object:
        """The variables as a settings file writes them."""
        return dict(value) if isinstance(value, tuple) else value
