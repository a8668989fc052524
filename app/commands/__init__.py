"""Slash commands shared by every front end (the TUI and the line mode).

Contract for a front end:

- ``run_command(runtime, "/name args")`` never raises: unknown commands, bad arguments
  and failures come back as a one-line hint (``error=True``).
- Render the :class:`CommandResult` generically: print ``lines``; render ``events`` like
  turn events; when ``stream`` is set, drive it exactly like ``agent.run_turn``
  (interruptible the same way); when ``quit`` is set, close the session and leave; when
  ``session_changed`` is set, reset the conversation view (the runtime now works on
  another session).
- When ``follow_ups`` is non-empty (/rewind without a choice), offer them under
  ``question`` and run the chosen one's ``command`` with ``run_command``.
- The only command-specific step is a picker: when ``sessions`` is non-empty (/resume
  without an id), offer the :class:`SessionChoice` values and call
  ``resume_session(runtime, choice.id)``, which returns a CommandResult too.
- Commands switch session or model only through the runtime's methods
  (``new_session``, ``resume``, ``use_model``), which replace ``runtime.agent``: always
  reach the agent through ``runtime.agent``, and re-read status values after a command.
- ``command_names()`` lists the commands (name, usage, summary) for completion.
"""

from __future__ import annotations

from lull.commands.base import CommandResult, FollowUp, SessionChoice
from lull.commands.registry import COMMANDS, Command, command_names, run_command
from lull.commands.sessions import choice_line, list_sessions, resume_session
from lull.commands.usage import format_cost
from lull.commands.view import Breakdown, context_bar, context_breakdown, describe

__all__ = [
    "COMMANDS",
    "Breakdown",
    "Command",
    "CommandResult",
    "FollowUp",
    "SessionChoice",
    "choice_line",
    "command_names",
    "context_bar",
    "context_breakdown",
    "describe",
    "format_cost",
    "list_sessions",
    "resume_session",
    "run_command",
]
