"""The command contract (what a command receives and gives back) and the helpers commands share.

A command is a function ``(runtime, argument) -> CommandResult``. It reads the runtime and
changes it only through its methods (``new_session``, ``resume``, ``use_model``); it never
assigns the runtime's fields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lull.model.events import Event

if TYPE_CHECKING:
    from lull.runtime import Runtime


@dataclass(frozen=True)
class SessionChoice:
    """One saved session a front end can offer in a /resume picker."""

    id: str
    created_at: float
    updated_at: float
    first_prompt: str
    message_count: int


@dataclass(frozen=True)
class FollowUp:
    """One choice a command offers: its label, and the command line that choosing it runs."""

    label: str
    command: str


@dataclass(frozen=True, eq=False)
class CommandResult:
    """What a command produced; a front end renders it without knowing the command.

    - ``lines``: text to show, one line each (plain text, no markup).
    - ``error``: the lines are a one-line hint about a bad command or argument.
    - ``events``: engine events to render like those of a turn (e.g. a ContextEdited).
    - ``quit``: leave lull (after closing the session).
    - ``sessions``: non-empty means "offer a picker"; then call
      ``resume_session(runtime, choice.id)`` with the choice (or do nothing on cancel).
    - ``stream``: events to drive exactly like ``agent.run_turn`` (e.g. /compact);
      cancelling it is as safe as cancelling a turn.
    - ``session_changed``: the runtime now works on another session (/clear, /resume):
      reset the conversation view and redraw it from ``runtime.agent.session.shown()``.
    - ``prefill``: text to put in the prompt box for the user to edit and send again (the
      prompt /rewind went back before).
    - ``follow_ups``: non-empty means "offer these choices" (titled ``question``); run the
      chosen one's ``command`` like a typed command line (or nothing on cancel).
    """

    lines: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()
    quit: bool = False
    error: bool = False
    sessions: tuple[SessionChoice, ...] = ()
    stream: AsyncIterator[Event] | None = None
    session_changed: bool = False
    follow_ups: tuple[FollowUp, ...] = ()
    prefill: str = ""
    question: str = ""


Handler = Callable[["Runtime", str], CommandResult]


def hint(text: str) -> CommandResult:
    """A one-line hint about bad input."""
    return CommandResult((text,), error=True)


def say(*lines: str) -> CommandResult:
    """Plain lines to show."""
    return CommandResult(tuple(lines))


def no_argument(name: str, arg: str) -> CommandResult | None:
    """The hint for a command that takes no argument but got one (None when it got none)."""
    if arg.strip():
        return hint(f"/{name} takes no argument (got {arg.strip()!r})")
    return None
