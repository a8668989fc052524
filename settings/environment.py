"""The ``env`` setting (Claude Code's key): environment variables for the session, e.g.
``{"ANTHROPIC_BASE_URL": "http://127.0.0.1:4000", "BASH_DEFAULT_TIMEOUT_MS": "120000"}``.

They apply to the model provider's configuration and to every process lull starts (commands,
hooks, MCP servers). A variable such as ``PATH`` or ``LD_PRELOAD`` decides what code runs, so
a project's ``env`` (``.lull/settings.json``, ``.claude/settings.json``) applies only once the
user trusts the workspace, like its hooks; until then a note says it waits for ``/trust``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lull.settings.checks import Check, Invalid

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class EnvVariable:
    """One variable of ``env``: where it came from (``scope`` "project": a project file's,
    in force only in a trusted workspace)."""

    name: str
    value: str
    scope: Literal["user", "project"] = "user"
    source: str = ""


def variables_in_force(variables: tuple[EnvVariable, ...], trusted: bool) -> dict[str, str]:
    """The variables that apply: the user's, and a project's once ``trusted``."""
    return {v.name: v.value for v in variables if v.scope == "user" or trusted}


def waiting_for_trust(variables: tuple[EnvVariable, ...]) -> dict[str, list[str]]:
    """A project's variables by the file that sets them (they wait for ``/trust``)."""
    waiting: dict[str, list[str]] = {}
    for variable in variables:
        if variable.scope == "project":
            waiting.setdefault(variable.source, []).append(variable.name)
    return waiting


@dataclass(frozen=True)
class EnvVariables(Check):
    """An object of variable names and string values (numbers and booleans are written as
    text, as a shell would hold them)."""

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return 'an object of environment variables ({"NAME": "value"})'

    def accepts(self, value: object) -> object:
        """A tuple of :class:`EnvVariable`, in the file's order."""
        if isinstance(value, tuple):
            return value
        if not isinstance(value, Mapping):
            raise self.fail()
        pairs: list[EnvVariable] = []
        for name, raw in value.items():
            if not isinstance(name, str) or not _NAME.fullmatch(name):
                raise Invalid(f"variable names of letters, digits and _ ({name!r} is not one)")
            if isinstance(raw, bool):
                raw = "true" if raw else "false"
            if not isinstance(raw, str | int | float) or "\0" in str(raw):
                raise Invalid(f"a string value without NUL for {name}")
            pairs.append(EnvVariable(name, str(raw)))
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
        if not isinstance(value, tuple):
            return value
        return {v.name: v.value for v in value if isinstance(v, EnvVariable)}
