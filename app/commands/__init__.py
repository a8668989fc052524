"""Slash commands shared by every front end (the TUI and the line mode).

Contract for a front end:

- ``run_command(target, "/name args")`` where ``target`` is the front end's
  :class:`~app.runtime.Runtime` (a bare :class:`~app.engine.agent.Agent` works for
  the commands that need nothing else). It never raises: unknown commands,
  bad arguments and failures come back as a one-line hint (``error=True``).
- Render the :class:`CommandResult` generically: print ``lines``; render
  ``events`` like turn events; when ``stream`` is set, drive it exactly like
  ``agent.run_turn`` (interruptible the same way); when ``quit`` is set, close
  the session and leave; when ``session_changed`` is set, reset the
  conversation view (the agent now works on ``agent.session``).
- The only command-specific step is a picker: when ``sessions`` is non-empty
  (/resume without an id), offer the :class:`SessionChoice` values and call
  ``resume_session(target, choice.id)``, which returns a CommandResult too.
- Commands change the runtime in place: /clear, /resume and /model put a new
  agent in ``runtime.agent`` (same tools, approver, config and request hooks;
  fresh per-session engine state) and /model updates ``runtime.provider_config``.
  Always reach the agent through ``runtime.agent``, never a saved copy, and
  re-read status values after every command.
- ``command_names()`` lists the commands (name, usage, summary) for completion;
  ``context_window(target)`` and ``session_cost(target)`` serve status bars.
"""

from __future__ import annotations

from app.commands.base import (
    CommandContext,
    CommandResult,
    SessionChoice,
    context_window,
    session_cost,
)
from app.commands.registry import COMMANDS, Command, command_names, run_command
from app.commands.sessions import choice_line, list_sessions, resume_session
from app.commands.usage import cache_hit_ratio, format_cost
from app.commands.view import Breakdown, context_bar, context_breakdown, describe

__all__ = [
    "COMMANDS",
    "Breakdown",
    "Command",
    "CommandContext",
    "CommandResult",
    "SessionChoice",
    "cache_hit_ratio",
    "choice_line",
    "command_names",
    "context_bar",
    "context_breakdown",
    "context_window",
    "describe",
    "format_cost",
    "list_sessions",
    "resume_session",
    "run_command",
    "session_cost",
]
