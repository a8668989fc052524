"""Tool search: MCP tools offered by name and one line, their schemas loaded on demand.

``tools.toolSearch`` (environment ``ENABLE_TOOL_SEARCH``, Claude Code's variable with the same
values) says when a server's tools are *deferred*: listed by name and one line in the
``tool_search`` tool's description instead of with their full schemas in every request, and
loaded (offered with their schemas from then on) when ``tool_search`` finds them or the model
calls one. Built-in tools are never deferred. The registry keeps the deferred tools
(``tools/deferral.py``); this module holds the setting's value and the tool's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal, assert_never

from lull.model import defaults

ToolSearchMode = Literal["on", "off", "auto"]
"""on: every MCP tool is deferred (Claude Code's ``true``); off: none is (``false``); auto:
an MCP server's tools are deferred once the MCP schemas pass a share of the window."""

TOOL_SEARCH_TOOL: Final = "tool_search"
"""The built-in tool that lists deferred tools and loads their schemas."""

_AUTO = re.compile(r"auto(?::(\d{1,3}))?")


@dataclass(frozen=True, slots=True)
class ToolSearchSetting:
    """``tools.toolSearch``: the mode, and for ``auto`` the share of the context window (in
    percent) the MCP tools' schemas may take before their servers' tools are deferred."""

    mode: ToolSearchMode
    percent: int = defaults.TOOL_SEARCH_AUTO_PERCENT

    def to_json(self) -> bool | str:
        """The value as a settings file writes it: true, false, "auto" or "auto:N"."""
        match self.mode:
            case "on":
                return True
            case "off":
                return False
            case "auto":
                if self.percent == defaults.TOOL_SEARCH_AUTO_PERCENT:
                    return "auto"
                return f"auto:{self.percent}"
            case _:
                assert_never(self.mode)

    def describe(self) -> str:
        """A few words for ``/mcp``."""
        match self.mode:
            case "on":
                return "on (every MCP tool is deferred)"
            case "off":
                return "off (every MCP tool is offered with its schema)"
            case "auto":
                return f"auto (deferred once MCP schemas pass {self.percent}% of the window)"
            case _:
                assert_never(self.mode)


TOOL_SEARCH_VALUES = 'true, false, "auto" or "auto:N" (N a percentage from 0 to 100)'
"""What ``tools.toolSearch`` accepts, in words (messages, the schema)."""


def parse_tool_search(value: object) -> ToolSearchSetting:
    """``value`` (a JSON value, or the text of ``ENABLE_TOOL_SEARCH``) as a setting; raises
    ``ValueError`` saying what was expected for anything else."""
    if isinstance(value, bool):
        return ToolSearchSetting("on" if value else "off")
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "1", "yes", "on"):
            return ToolSearchSetting("on")
        if text in ("false", "0", "no", "off"):
            return ToolSearchSetting("off")
        match = _AUTO.fullmatch(text)
        if match is not None:
            if match.group(1) is None:
                return ToolSearchSetting("auto")
            percent = int(match.group(1))
            if percent <= 100:
                return ToolSearchSetting("auto", percent)
    raise ValueError(f"{TOOL_SEARCH_VALUES} (got {value!r})")


DEFAULT_TOOL_SEARCH: Final = parse_tool_search(defaults.TOOL_SEARCH)
"""The setting a user who sets nothing gets."""
