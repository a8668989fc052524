"""The command table and the dispatcher every front end calls."""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, Handler, hint
from lull.commands.checkpoints import rewind_command, undo_command
from lull.commands.config import model_command, settings_command
from lull.commands.custom import CustomCommand, LoadedCommands, workspace_commands
from lull.commands.custom_run import custom_command, skill_as_command
from lull.commands.hooks import hooks_command
from lull.commands.init import init_command
from lull.commands.mcp import mcp_command
from lull.commands.notes import notes_command
from lull.commands.permissions import permissions_command
from lull.commands.sandbox import sandbox_command
from lull.commands.sessions import clear_command, resume_command
from lull.commands.trust import trust_command
from lull.commands.usage import cost_report
from lull.commands.view import compact, context_report

if TYPE_CHECKING:
    from lull.runtime import Runtime

log = logging.getLogger("lull.commands")


@dataclass(frozen=True)
class Command:
    """One slash command: how to call it, what it is for, and its handler."""

    name: str
    usage: str
    summary: str
    handler: Handler
    hidden: bool = False


DEMO_HINT = "no API key? `lull --demo` tries lull with a built-in scripted model (no network)"


def _help(runtime: Runtime, arg: str) -> CommandResult:
    custom = custom_commands(runtime)
    rows = [(c.usage, c.summary) for c in COMMANDS.values() if not c.hidden]
    rows += [(c.usage, c.summary) for c in custom.commands.values()]
    width = max(len(usage) for usage, _ in rows)
    lines = [f"{usage:<{width}}  {summary}" for usage, summary in rows]
    lines += [f"skipped {problem}" for problem in custom.problems]
    lines += ["", DEMO_HINT]
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
        "/context [restore [clears|compression|rewind]]",
        "what the model sees, in tokens; `restore` undoes clears and the latest compression "
        "(`rewind`: the latest /rewind)",
        context_report,
    ),
    Command(
        "notes",
        "/notes [add [KEY:] TEXT|delete KEY]",
        "session notes: show them, add one, or delete one",
        notes_command,
    ),
    Command("compact", "/compact [FOCUS]", "summarise older messages now", compact),
    Command(
        "init",
        "/init [NOTES]",
        "study the repository and write (or improve) AGENTS.md",
        init_command,
    ),
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
        "sandbox",
        "/sandbox",
        "whether commands run in the OS sandbox, what it allows, what is missing",
        sandbox_command,
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


def custom_commands(runtime: Runtime) -> LoadedCommands:
    """The custom commands of the user and the workspace (built-in names win)."""
    return workspace_commands(runtime.workspace, frozenset(COMMANDS))


def command_entries(workspace: Path) -> list[tuple[str, str]]:
    """(name, summary) of every visible command, built-in then custom (for completion)."""
    custom = workspace_commands(workspace, frozenset(COMMANDS))
    return [(c.name, c.summary) for c in command_names()] + [
        (c.name, c.summary) for c in custom.commands.values()
    ]


def command_names() -> list[Command]:
    """The visible commands in help order (for completion menus)."""
    return [c for c in COMMANDS.values() if not c.hidden]


def run_command(runtime: Runtime, text: str) -> CommandResult:
    """Run a ``/command args`` line; bad input gets a one-line hint, never an exception."""
    name, _, arg = text.strip().removeprefix("/").partition(" ")
    name = name.strip().lower()
    if not name:
        return hint("type a command after /, e.g. /help")
    command = COMMANDS.get(name)
    if command is None:  # a custom command, or a prefix of one command's name
        return _run_custom(runtime, name, arg)
    try:
        return command.handler(runtime, arg)
    except Exception as error:  # a command must never take the front end down
        log.exception("/%s failed", name)
        return hint(f"/{name} failed: {type(error).__name__}: {error}")


def _run_custom(runtime: Runtime, name: str, arg: str) -> CommandResult:
    """A custom command by name, else a skill (or the hint for a name nothing answers to)."""
    loaded = custom_commands(runtime)
    custom = loaded.commands
    found: CustomCommand | None = custom.get(name)
    if found is None and name in loaded.refused:
        return hint(f"/{name}: {loaded.refused[name]}")
    if found is None:  # a skill, run as Claude Code runs /skill-name (custom commands win)
        skill = skill_as_command(runtime, name)
        if isinstance(skill, str):
            return hint(f"/{name}: {skill}")
        found = skill
    if found is None:
        several = [f"/{c.name}" for c in command_names() if c.name.startswith(name)]
        several += [f"/{n}" for n in custom if n.startswith(name)]
        if len(several) == 1:
            return run_command(runtime, f"{several[0]} {arg}")
        if several:
            return hint(f"/{name} is ambiguous: {', '.join(several)}")
        close = difflib.get_close_matches(name, [*COMMANDS, *custom], n=1)
        guess = f"did you mean /{close[0]}? " if close else ""
        return hint(f"unknown command /{name}; {guess}type /help for the list")
    try:
        return custom_command(runtime, found, arg)
    except Exception as error:  # a command must never take the front end down
        log.exception("/%s failed", name)
        return hint(f"/{name} failed: {type(error).__name__}: {error}")
