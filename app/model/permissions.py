"""Saved permission rules: ``tool`` or ``tool(pattern)`` strings that allow, ask about or
deny tool calls, where each came from, and how a rule is written.

A rule names a tool (lull's name, a Claude Code name such as ``Bash`` or ``Edit``, or a
``*`` pattern such as ``mcp__github__*``) and optionally a pattern in parentheses, whose
meaning depends on the tool (``tools/permissions/rules.py`` matches them): a command prefix for
``run_shell_command(npm test*)``, a path glob for ``read_file(src/**)`` and ``edit(docs/**)``,
``domain:HOST`` for ``web_fetch``. Precedence is deny > ask > allow > the approval mode.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

RuleEffect = Literal["allow", "ask", "deny"]
"""What a matching rule does to a call."""
RULE_EFFECTS: tuple[RuleEffect, ...] = ("deny", "ask", "allow")
"""The effects in order of precedence: the first that matches decides."""
RuleScope = Literal["user", "workspace", "project", "session"]
"""Where a rule came from: the user settings file, the user's rules for this workspace (kept
in the user's config directory), the repository's ``.lull/settings.json`` (its ``allow``
rules apply only in a trusted workspace), or an "allow always" answer for this session."""
SaveScope = Literal["session", "workspace", "user"]
"""Where an "allow always" answer is kept: this session, this workspace, or everywhere."""
SAVE_SCOPES: tuple[SaveScope, ...] = get_args(SaveScope)

CLAUDE_CODE_NAMES: dict[str, tuple[str, ...]] = {
    "run_shell_command": ("Bash",),
    "read_file": ("Read",),
    "edit": ("Edit", "MultiEdit"),
    "write_file": ("Write",),
    "web_fetch": ("WebFetch",),
    "web_search": ("WebSearch",),
    "grep_search": ("Grep",),
    "glob": ("Glob",),
    "list_directory": ("LS",),
    "task": ("Task", "Agent"),
    "skill": ("Skill",),
    "todo_write": ("TodoWrite",),
}
"""lull's built-in tools by the names Claude Code users write in rules and hook matchers (the
first is the name Claude Code's own tool has: :func:`claude_code_name`)."""

_RULE_ALIASES: dict[str, tuple[str, ...]] = {
    alias: (tool,) for tool, aliases in CLAUDE_CODE_NAMES.items() for alias in aliases
}
_RULE_ALIASES["Edit"] = ("edit", "write_file")  # as in Claude Code: every file-editing tool

_TOOL_NAME = re.compile(r"[A-Za-z0-9_.*-]+")


def claude_code_name(tool: str) -> str:
    """The name Claude Code gives lull's tool ``tool`` (``run_shell_command`` -> ``Bash``), as
    hooks and ``-p``'s stream-json show it; a tool Claude Code has no match for (an MCP tool's
    ``mcp__server__tool`` already is its name) keeps lull's name."""
    names = CLAUDE_CODE_NAMES.get(tool)
    return names[0] if names else tool


def claude_code_input(arguments: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """A call's arguments as Claude Code's tools name them: lull's, plus ``file_path``
    (absolute) next to ``path``, so hooks and ``-p`` consumers written for Claude Code find
    the file."""
    named = dict(arguments)
    path = named.get("path")
    if isinstance(path, str) and path.strip() and "file_path" not in named:
        given = Path(path).expanduser()
        named["file_path"] = str(given if given.is_absolute() else workspace / given)
    return named


def rule_tools(name: str) -> tuple[str, ...]:
    """The lull tool names (or name patterns) a rule's tool part stands for."""
    return _RULE_ALIASES.get(name, (name,))


def split_rules(text: str) -> list[str]:
    """``"Bash(git log:*) Edit,Read"`` -> three rules (separators inside parentheses stay); a
    YAML list on one line (``[Read, "Bash(git add:*)"]``) is read the same way."""
    inner = text.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    rules: list[str] = []
    current: list[str] = []
    depth = 0
    for char in inner:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and (char == "," or char.isspace()):
            rules.append("".join(current))
            current = []
        else:
            current.append(char)
    rules.append("".join(current))
    return [rule.strip().strip("\"'") for rule in rules if rule.strip().strip("\"'")]


def parse_rule(text: str) -> tuple[str, str | None]:
    """``(tool, pattern)`` of a rule: ``"run_shell_command(npm test*)"`` ->
    ``("run_shell_command", "npm test*")``, ``"edit"`` -> ``("edit", None)``.

    Raises ``ValueError`` with a message saying what is wrong with the rule.
    """
    rule = text.strip()
    if not rule:
        raise ValueError("a rule is empty; write TOOL or TOOL(PATTERN)")
    name, opening, rest = rule.partition("(")
    name = name.strip()
    if not _TOOL_NAME.fullmatch(name):
        raise ValueError(
            f"rule {text!r}: {name!r} is no tool name (letters, digits, _ - . and *; "
            "write TOOL or TOOL(PATTERN))"
        )
    if not opening:
        return name, None
    if not rest.endswith(")"):
        raise ValueError(f"rule {text!r} has no closing parenthesis; write TOOL(PATTERN)")
    pattern = rest[:-1].strip()
    if not pattern:
        raise ValueError(f"rule {text!r} has an empty pattern; write {name} for every call")
    return name, pattern


@dataclass(frozen=True, slots=True)
class PermissionRule:
    """One saved rule: its effect, its text as written, where it came from.

    ``source`` is a file path or "this session"; ``scope`` says which kind of place that is
    (a project file's ``allow`` rules apply only once the workspace is trusted).
    """

    effect: RuleEffect
    text: str
    source: str = ""
    scope: RuleScope = "user"

    @property
    def tool(self) -> str:
        """The tool part as written (``Bash``, ``run_shell_command``, ``mcp__github__*``)."""
        return parse_rule(self.text)[0]

    @property
    def pattern(self) -> str | None:
        """The pattern in parentheses, or None for a rule about every call of the tool."""
        return parse_rule(self.text)[1]

    def described(self) -> str:
        """How a message names this rule: ``deny rule "run_shell_command(rm *)" from FILE``."""
        where = f" from {self.source}" if self.source else ""
        return f'{self.effect} rule "{self.text}"{where}'
