"""The tools one turn may use: a custom command's ``allowed-tools``.

A custom slash command may name the tools its turn uses (``allowed-tools: read_file,
Bash(git status:*)``, Claude Code's names work too). Within that turn a call of any other
tool is refused with a result saying why (the list narrows what the model may do). For a
command the user wrote (``<config>/lull/commands``), a listed tool also runs without being
asked, as in Claude Code; a project's command (``.lull/commands``, untrusted data) only
narrows: its listed tools are asked about as usual. The approval mode still wins: plan mode
refuses an edit whatever a command says.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lull.model.messages import ToolCall
from lull.model.permissions import CLAUDE_CODE_NAMES

SHELL_TOOL = "run_shell_command"
READ_TOOL = "read_file"

ALIASES: Mapping[str, str] = {
    alias.lower(): tool for tool, aliases in CLAUDE_CODE_NAMES.items() for alias in aliases
}
"""Claude Code's tool names (lower-cased, as ``allowed-tools`` is matched) as lull's."""
_RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_*-]+)(?:\((?P<spec>[^()]*)\))?$")


@dataclass(frozen=True, slots=True)
class ToolRule:
    """One entry of ``allowed-tools``: a tool (lull's name) and, for the shell, the command
    prefix it is limited to (``Bash(git status:*)``: ``git status``; None: any command)."""

    tool: str
    prefix: str | None = None

    def matches(self, call: ToolCall) -> bool:
        """Whether ``call`` is one this rule names."""
        if not _name_matches(self.tool, call.name):
            return False
        if self.prefix is None:
            return True
        command = _command_of(call.arguments)
        return command is not None and _prefix_matches(self.prefix, command)

    def __str__(self) -> str:
        return self.tool if self.prefix is None else f"{self.tool}({self.prefix}:*)"


def parse_tool_rule(text: str) -> ToolRule:
    """``Bash(git add:*)``, ``run_shell_command(make)``, ``Read`` or ``mcp__gh__*`` as a rule;
    raises ValueError saying what is wrong."""
    match = _RULE.match(text.strip())
    if match is None:
        raise ValueError(f"{text.strip()!r} is not a tool name or Tool(command:*)")
    name = match.group("tool")
    tool = ALIASES.get(name.lower(), name)
    spec = match.group("spec")
    if spec is None:
        return ToolRule(tool)
    if tool != SHELL_TOOL:
        raise ValueError(f"{text.strip()!r}: only the shell takes a (command:*) limit")
    prefix = spec.strip().removesuffix("*").removesuffix(":").strip()
    return ToolRule(tool, prefix or None)


@dataclass(frozen=True, slots=True)
class TurnScope:
    """The tools one turn may use (``source`` names the command, for messages) and whether
    the listed ones run without being asked (the user's own command)."""

    rules: tuple[ToolRule, ...]
    source: str
    preapproved: bool = False
    readable: tuple[str, ...] = ()
    """Files the turn may read with ``read_file`` whatever ``rules`` say: the user's own
    prompt, saved because it was too large to send whole."""

    def permits(self, call: ToolCall) -> bool:
        """Whether ``call`` may run at all within this turn."""
        return any(rule.matches(call) for rule in self.rules) or self._reads_readable(call)

    def _reads_readable(self, call: ToolCall) -> bool:
        path = call.arguments.get("path")
        if call.name != READ_TOOL or not isinstance(path, str) or not path.strip():
            return False
        return os.path.normpath(os.path.expanduser(path.strip())) in self.readable

    def preapproves(self, call: ToolCall) -> bool:
        """Whether ``call`` runs without asking (a listed tool of the user's own command)."""
        return self.preapproved and self.permits(call)

    def refusal(self, call: ToolCall) -> str:
        """The result the model sees for a call outside the scope."""
        listed = ", ".join(str(rule) for rule in self.rules) or "none"
        return (
            f"{call.name} was not run: {self.source} allows only these tools: {listed}. "
            "Do the task with them, or tell the user what else you need."
        )


def _name_matches(pattern: str, name: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def _command_of(arguments: Mapping[str, Any]) -> str | None:
    command = arguments.get("command")
    return command if isinstance(command, str) else None


def _prefix_matches(prefix: str, command: str) -> bool:
    """``git status`` allows ``git status`` and ``git status -s``, not ``git statusx`` nor a
    second command chained after it."""
    command = command.strip()
    if any(token in command for token in ("&&", "||", ";", "|", "`", "$(", "\n")):
        return False
    return command == prefix or command.startswith(prefix + " ")
