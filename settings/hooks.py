"""The ``hooks`` setting, in the shape Claude Code users already have:

``{"PreToolUse": [{"matcher": "Bash|run_shell_command", "hooks": [{"type": "command",
"command": "./check.sh", "timeout": 60}]}]}``. Every event (:data:`HOOK_EVENTS`) holds a
list of matcher groups; each group's commands run when its matcher matches. The hooks of every
settings file add up; a project's run only in a trusted workspace.

A wrong entry is left out with a warning that names it, and every other hook still runs: an
event lull does not know (or one Claude Code has that lull never fires), a hook type other than
``command`` (``http``, ``prompt``, ``agent``), a bad matcher or command.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from lull.model.hooks import (
    DEFAULT_HOOK_TIMEOUT,
    HOOK_EVENTS,
    UNFIRED_EVENTS,
    HookCommand,
    HookEvent,
)
from lull.settings.checks import Check, Invalid, PartlyInvalid

_COMMAND_KEYS = ("type", "command", "args", "timeout", "statusMessage", "async", "once")
"""The keys of a command hook lull reads (``async`` and ``once`` are accepted: the command
runs, and lull waits for it each time)."""

_COMMAND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "command"],
    "properties": {
        "type": {"enum": ["command"]},
        "command": {"type": "string", "minLength": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "timeout": {"type": "number", "exclusiveMinimum": 0},
        "statusMessage": {"type": "string"},
        "async": {"type": "boolean"},
        "once": {"type": "boolean"},
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
        """A tuple of :class:`HookCommand`, in the file's order; raises
        :class:`PartlyInvalid` (with the good ones) when some entries are wrong."""
        if isinstance(value, tuple) and all(isinstance(h, HookCommand) for h in value):
            return value
        if not isinstance(value, Mapping):
            raise self.fail()
        commands: list[HookCommand] = []
        problems: list[str] = []
        for event, groups in value.items():
            if event in UNFIRED_EVENTS:
                problems.append(
                    f"lull never fires {event} (a Claude Code event); its hooks are ignored"
                )
                continue
            if event not in HOOK_EVENTS:
                known = ", ".join(HOOK_EVENTS)
                problems.append(f"{event!r} is not a hook event ({known}); its hooks are ignored")
                continue
            if not isinstance(groups, list):
                problems.append(f"expected a list of matcher groups for {event}; ignored")
                continue
            for index, group in enumerate(groups):
                try:
                    commands.extend(_group(event, index, group, problems))
                except Invalid as exc:
                    problems.append(f"expected {exc}; that group is ignored")
        if problems:
            raise PartlyInvalid(tuple(commands), problems)
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


def _group(event: HookEvent, index: int, group: object, problems: list[str]) -> list[HookCommand]:
    """One matcher group's commands; a wrong command is a problem of its own."""
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
    found: list[HookCommand] = []
    for i, entry in enumerate(commands):
        place = f"{where}.hooks[{i}]"
        try:
            found.append(_command(event, matcher, place, entry))
        except Invalid as exc:
            problems.append(f"expected {exc}; that hook is ignored")
    return found


def _command(event: HookEvent, matcher: str, where: str, entry: object) -> HookCommand:
    if not isinstance(entry, Mapping):
        raise Invalid(f'an object ({{"type": "command", "command": ...}}) in {where}')
    kind = entry.get("type")
    if kind in ("http", "prompt", "agent", "mcp_tool"):
        raise Invalid(f'"type": "command" in {where} (lull runs command hooks; {kind} is not one)')
    if kind != "command":
        raise Invalid(f'"type": "command" in {where} (got {kind!r})')
    unknown = sorted(str(key) for key in entry if key not in _COMMAND_KEYS)
    if unknown:
        keys = ", ".join(_COMMAND_KEYS)
        raise Invalid(f"only {keys} in {where}; {', '.join(unknown)} is not one")
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise Invalid(f"a non-empty command string in {where}.command")
    args = entry.get("args")
    if args is not None:
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise Invalid(f"a list of strings in {where}.args")
        command = shlex.join([command, *args])  # exec form: each argument arrives as written
    timeout = entry.get("timeout", DEFAULT_HOOK_TIMEOUT)
    number = float(timeout) if isinstance(timeout, int | float) else math.nan
    if isinstance(timeout, bool) or not math.isfinite(number) or number <= 0:
        raise Invalid(f"a number of seconds > 0 in {where}.timeout (got {timeout!r})")
    return HookCommand(event, command, matcher, number)
