"""The ``tools.toolSearch`` check (Claude Code's ``ENABLE_TOOL_SEARCH`` values): when MCP tools
are offered by name only and their schemas loaded on demand."""

from __future__ import annotations

from typing import Any

from lull.model.tool_search import TOOL_SEARCH_VALUES, ToolSearchSetting, parse_tool_search
from lull.settings.checks import Check

AUTO_PATTERN = r"^auto(:(100|[1-9]?[0-9]))?$"
"""``auto`` or ``auto:N`` with N from 0 to 100, as ``schema.json`` says it."""


class ToolSearch(Check):
    """``true``, ``false``, ``"auto"`` or ``"auto:N"``."""

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return TOOL_SEARCH_VALUES

    def accepts(self, value: object) -> object:
        """A :class:`ToolSearchSetting`."""
        try:
            return parse_tool_search(value)
        except ValueError:
            raise self.fail() from None

    def value_schema(self) -> dict[str, Any]:
        """A boolean, or ``auto`` / ``auto:N``."""
        return {"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": AUTO_PATTERN}]}

    def to_json(self, value: object) -> object:
        """The value as a settings file writes it."""
        return value.to_json() if isinstance(value, ToolSearchSetting) else value
