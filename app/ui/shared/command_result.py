"""What a command's result means, decided once for every front end.

A :class:`~lull.commands.CommandResult` says what a command produced; :func:`show_result`
turns it into the front end's actions in one order: a changed session is shown anew first (so
what the command says lands below it), then the command's lines, the text offered back to the
prompt, its events; then at most one next step (leave lull, pick a session, pick a follow-up,
or drive a stream); last, a new session's start. A front end only says how each action looks
(:class:`ResultView`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from lull.model.events import Event

if TYPE_CHECKING:  # the front ends import lull.commands only when a command runs
    from lull.commands import CommandResult, FollowUp, SessionChoice


class ResultView(Protocol):
    """How one front end carries out each action of a command result."""

    async def show_session(self) -> None:
        """Show the agent's (new) session from scratch: ``/clear``, ``/resume``."""
        ...

    async def show_lines(self, title: str, lines: tuple[str, ...], error: bool) -> None:
        """Show the command's lines (``error``: a one-line hint about bad input)."""
        ...

    def offer_prompt(self, text: str) -> None:
        """Put ``text`` in the prompt for the user to edit and send again."""
        ...

    async def show_event(self, event: Event) -> None:
        """Render one engine event as a turn's would be."""
        ...

    async def quit(self) -> None:
        """Leave lull (after closing the session)."""
        ...

    async def pick_session(self, choices: tuple[SessionChoice, ...]) -> None:
        """Offer the sessions to resume; resume the chosen one."""
        ...

    async def pick_follow_up(self, question: str, choices: tuple[FollowUp, ...]) -> None:
        """Offer the command's choices; run the chosen one's command."""
        ...

    async def drive(self, stream: AsyncIterator[Event]) -> None:
        """Drive ``stream`` like a turn (the front end may start it in the background)."""
        ...

    def session_opened(self) -> object:
        """A session opened: run its ``SessionStart`` hooks before its first prompt."""
        ...


async def show_result(view: ResultView, title: str, result: CommandResult) -> None:
    """Carry out ``result`` (of the command line ``title``) on ``view``."""
    if result.session_changed:
        await view.show_session()
    if result.lines:
        await view.show_lines(title, result.lines, result.error)
    if result.prefill:
        view.offer_prompt(result.prefill)
    for event in result.events:
        await view.show_event(event)
    if result.quit:
        await view.quit()
    elif result.sessions:
        await view.pick_session(result.sessions)
    elif result.follow_ups:
        await view.pick_follow_up(result.question, result.follow_ups)
    elif result.stream is not None:
        await view.drive(result.stream)
    if result.session_changed:
        view.session_opened()
