"""The command table and the dispatcher every front end calls."""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.commands.base import CommandResult, Handler, hint
from app.commands.checkpoints import rewind_command, undo_command
from app.commands.config import model_command, settings_command
from app.commands.hooks import hooks_command
from app.commands.mcp import mcp_command
from app.commands.notes import notes_command
from app.commands.permissions import permissions_command
from app.commands.sessions import clear_command, resume_command
from app.commands.trust import trust_command
from app.commands.usage import cost_report
from app.commands.view import compact, context_report

if TYPE_CHECKING:
    from app.runtime import Runtime

log = logging.getLogger("lull.commands")


@dataclass(frozen=True)
class Command:
    """One slash command: how to call it, what it is for, and its handler."""

    name: str
    usage: str
    summary: str
    handler: Handler
    hidden: bool = False


def _help(runtime: Runtime, arg: str) -> CommandResult:
    width = max(len(c.usage) for c in COMMANDS.values())
    lines = [f"{c.usage:<{width}}  {c.summary}" for c in COMMANDS.values() if not c.hidden]
    return CommandResult(tuple(lines))


def _quit(runtime: Runtime, arg: str) -> CommandResult:
    return CommandResult(quit=True)


_TABLE = (
    Command("help", "/help", "show the commands", _help),
    Command("clear", "/clear", "start a new session (the current one stays saved)", clear_command),
    Command("resume", "/resume [ID]", "pick a saved session of this workspace", resume_command),
    Command("model", "/model [NAME]", "show the model, or switch to NAME", model_command),
    Command(
        "context",
        "/context [restore [clears|compression]]",
        "what the model sees, in tokens; `restore` undoes clears and the latest compression",
        context_report,
    ),
    Command(
        "notes",
        "/notes [add [KEY:] TEXT|delete KEY]",
        "session notes: show them, add one, or delete one",
        notes_command,
    ),
    Command("compact", "/compact [FOCUS]", "summarise older messages now", compact),
    Command("cost", "/cost", "tokens by kind, cache hit ratio and money", cost_report),
    Command(
        "settings",
        "/settings [PREFIX]",
        "effective settings and where each came from",
        settings_command,
    ),
    Command("mcp", "/mcp", "MCP servers: status, tools and last error", mcp_command),
    Command(
        "permissions",
        "/permissions [allow|ask|deny RULE]",
        "the permission rules in force and where each came from; add one for this session",
        permissions_command,
    ),
    Command(
        "hooks", "/hooks", "the hook commands configured and where each came from", hooks_command
    ),
    Command(
        "trust",
        "/trust [status|revoke]",
        "trust this workspace: its MCP servers, hooks and allow rules may apply",
        trust_command,
    ),
    Command(
        "undo",
        "/undo [force]",
        "revert the file changes of the last turn that changed files",
        undo_command,
    ),
    Command(
        "rewind",
        "/rewind [N [code|conversation|both] [force]]",
        "list the prompts; go back to before prompt N (files, conversation or both)",
        rewind_command,
    ),
    Command("quit", "/quit", "leave lull", _quit),
    Command("exit", "/exit", "leave lull", _quit, hidden=True),
)
COMMANDS: dict[str, Command] = {c.name: c for c in _TABLE}


def command_names() -> list[Command]:
    """The visible commands in help order (for completion menus)."""
    return [c for c in COMMANDS.values() if not c.hidden]


def find_command(name: str) -> Command | None:
    """The command called ``name``, or the only visible one it is a prefix of."""
    if name in COMMANDS:
        return COMMANDS[name]
    matches = [c for c in command_names() if c.name.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def run_command(runtime: Runtime, text: str) -> CommandResult:
    """Run a ``/command args`` line; bad input gets a one-line hint, never an exception."""
    name, _, arg = text.strip().removeprefix("/").partition(" ")
    name = name.strip().lower()
    if not name:
        return hint("type a command after /, e.g. /help")
    command = find_command(name)
    if command is None:
        several = [f"/{c.name}" for c in command_names() if c.name.startswith(name)]
        if several:
            return hint(f"/{name} is ambiguous: {', '.join(several)}")
        close = difflib.get_close_matches(name, list(COMMANDS), n=1)
        guess = f"did you mean /{close[0]}? " if close else ""
        return hint(f"unknown command /{name}; {guess}type /help for the list")
    try:
        return command.handler(runtime, arg)
    except Exception as error:  # a command must never take the front end down
        log.exception("/%s failed", name)
        return hint(f"/{name} failed: {type(error).__name__}: {error}")
