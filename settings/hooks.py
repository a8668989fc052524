"""The ``hooks`` setting, in the shape Claude Code users already have:

``{"PreToolUse": [{"matcher": "Bash|run_shell_command", "hooks": [{"type": "command",
"command": "./check.sh", "timeout": 60}]}]}``. Every event (``PreToolUse``, ``PostToolUse``,
``UserPromptSubmit``, ``Stop``, ``SessionStart``, ``PreCompact``, ``Notification``) holds a
list of matcher groups; each group's commands run when its matcher matches. The hooks of every
settings file add up; a project's run only in a trusted workspace.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from lull.model.hooks import DEFAULT_HOOK_TIMEOUT, HOOK_EVENTS, HookCommand, HookEvent
from lull.settings.checks import Check, Invalid

_COMMAND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "command"],
    "properties": {
        "type": {"enum": ["command"]},
        "command": {"type": "string", "minLength": 1},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
    },
    "additionalProperties": False,
}
_GROUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "matcher": {"type": "string"},
        "hooks": {"type": "array", "items": _COMMAND_SCHEMA},
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Hooks(Check):
    """Hook commands by event; a message names the event, the group and the key that is
    wrong."""

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return 'an object of hook events ({"PreToolUse": [{"matcher": ..., "hooks": [...]}]})'

    def accepts(self, value: object) -> object:
        """A tuple of :class:`HookCommand`, in the file's order."""
        if isinstance(value, tuple) and all(isinstance(h, HookCommand) for h in value):
            return value
        if not isinstance(value, Mapping):
            raise self.fail()
        commands: list[HookCommand] = []
        for event, groups in value.items():
            if event not in HOOK_EVENTS:
                raise Invalid(f"a hook event ({', '.join(HOOK_EVENTS)}); {event!r} is not one")
            if not isinstance(groups, list):
                raise Invalid(f"a list of matcher groups for {event}")
            for index, group in enumerate(groups):
                commands.extend(_group(event, index, group))
        return tuple(commands)

    def value_schema(self) -> dict[str, Any]:
        """An object of event -> list of matcher groups."""
        return {
            "type": "object",
            "propertyNames": {"enum": list(HOOK_EVENTS)},
            "additionalProperties": {"type": "array", "items": _GROUP_SCHEMA},
        }

    def to_json(self, value: object) -> object:
        """The hooks as a settings file writes them (one group per command)."""
        if not isinstance(value, tuple):
            return value
        out: dict[str, list[dict[str, Any]]] = {}
        for hook in value:
            command: dict[str, Any] = {"type": "command", "command": hook.command}
            if hook.timeout != DEFAULT_HOOK_TIMEOUT:
                command["timeout"] = hook.timeout
            group: dict[str, Any] = {"matcher": hook.matcher, "hooks": [command]}
            out.setdefault(hook.event, []).append(group)
        return out

    def stamped(self, value: object, source: str, project: bool) -> object:
        """The hooks marked with the file they came from (a project's wait for trust)."""
        if not isinstance(value, tuple):
            return value
        return tuple(replace(hook, source=source, project=project) for hook in value)


def _group(event: HookEvent, index: int, group: object) -> list[HookCommand]:
    where = f"{event}[{index}]"
    if not isinstance(group, Mapping):
        raise Invalid(f'an object ({{"matcher": ..., "hooks": [...]}}) in {where}')
    unknown = sorted(str(key) for key in group if key not in ("matcher", "hooks"))
    if unknown:
        raise Invalid(f"only matcher and hooks in {where}; {', '.join(unknown)} is not one")
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        raise Invalid(f"a string in {where}.matcher")
    if matcher.strip() not in ("", "*"):
        try:
            re.compile(matcher)
        except re.error as error:
            raise Invalid(f"a regular expression in {where}.matcher ({error})") from None
    commands = group.get("hooks")
    if not isinstance(commands, list):
        raise Invalid(f"a list of commands in {where}.hooks")
    return [_command(event, matcher, f"{where}.hooks[{i}]", c) for i, c in enumerate(commands)]


def _command(event: HookEvent, matcher: str, where: str, entry: object) -> HookCommand:
    if not isinstance(entry, Mapping):
        raise Invalid(f'an object ({{"type": "command", "command": ...}}) in {where}')
    unknown = sorted(str(key) for key in entry if key not in ("type", "command", "timeout"))
    if unknown:
        raise Invalid(f"only type, command and timeout in {where}; {', '.join(unknown)} is not one")
    if entry.get("type") != "command":
        raise Invalid(f'"type": "command" in {where} (got {entry.get("type")!r})')
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise Invalid(f"a non-empty command string in {where}.command")
    timeout = entry.get("timeout", DEFAULT_HOOK_TIMEOUT)
    number = float(timeout) if isinstance(timeout, int | float) else math.nan
    if isinstance(timeout, bool) or not math.isfinite(number) or number <= 0:
        raise Invalid(f"a number of seconds > 0 in {where}.timeout (got {timeout!r})")
    return HookCommand(event, command, matcher, number)
