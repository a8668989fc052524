"""Slash commands shared by every front end.

A command takes the agent and its argument text and returns lines to show;
front ends only print them. Unknown commands and bad arguments get a one-line
hint, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.context.edits import ClearThinking, ClearToolResults, Restore, Summary
from app.context.view import active_edits
from app.core.events import ContextEdited
from app.core.loop import Agent


@dataclass(frozen=True)
class CommandResult:
    """What a command produced: lines to show, events to render, and whether to quit."""

    lines: tuple[str, ...] = ()
    events: tuple[ContextEdited, ...] = ()
    quit: bool = False


Handler = Callable[[Agent, str], CommandResult]


def _help(agent: Agent, arg: str) -> CommandResult:
    lines = [f"/{name:<10} {summary}" for name, (summary, _) in sorted(COMMANDS.items())]
    return CommandResult(tuple(lines))


def _quit(agent: Agent, arg: str) -> CommandResult:
    return CommandResult(quit=True)


def _context(agent: Agent, arg: str) -> CommandResult:
    if arg.strip() == "restore":
        return _restore(agent)
    if arg.strip():
        return CommandResult(
            (f"unknown /context argument {arg.strip()!r}; try /context or /context restore",)
        )
    session = agent.session
    view = session.view()
    lines = [
        f"context: ~{session.context_tokens():,} tokens in {len(view)} messages "
        f"(transcript: {len(session.transcript)} messages)",
    ]
    live = active_edits(session.edits)
    if not live:
        lines.append("no context edits: the model sees the whole transcript")
    for edit in live:
        lines.append("  " + describe(edit))
    return CommandResult(tuple(lines))


def describe(edit: ClearToolResults | ClearThinking | Summary | Restore) -> str:
    """One line saying what an edit changed."""
    if isinstance(edit, ClearToolResults):
        return (
            f"cleared {len(edit.call_ids)} tool results (~{edit.tokens_saved:,} tokens, "
            f"{edit.reason}, gap {edit.gap_minutes:.1f} min)"
        )
    if isinstance(edit, ClearThinking):
        return (
            f"cleared thinking from {len(edit.message_ids)} messages "
            f"(~{edit.tokens_saved:,} tokens, {edit.reason})"
        )
    if isinstance(edit, Summary):
        return (
            f"summary replaced earlier messages ({edit.tokens_before:,} -> {edit.tokens_after:,})"
        )
    return f"restored {len(edit.edit_ids)} edits"


def _restore(agent: Agent) -> CommandResult:
    clears = [
        e
        for e in active_edits(agent.session.edits)
        if isinstance(e, ClearToolResults | ClearThinking)
    ]
    if not clears:
        return CommandResult(("nothing to restore: no tool results or thinking are cleared",))
    edit = Restore(tuple(e.id for e in clears), at=agent.clock())
    agent.session.add_edit(edit)
    line = f"restored {len(clears)} cleared edit(s); the next request sends the original content"
    return CommandResult((line,), (ContextEdited(edit, line),))


COMMANDS: dict[str, tuple[str, Handler]] = {
    "help": ("show the commands", _help),
    "context": (
        "show what the model sees; `/context restore` brings cleared content back",
        _context,
    ),
    "quit": ("leave lull", _quit),
    "exit": ("leave lull", _quit),
}


def run_command(agent: Agent, text: str) -> CommandResult:
    """Run a ``/command args`` line."""
    name, _, arg = text.strip().removeprefix("/").partition(" ")
    entry = COMMANDS.get(name)
    if entry is None:
        return CommandResult((f"unknown command /{name}; type /help for the list",))
    return entry[1](agent, arg)
