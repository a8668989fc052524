"""``SessionEnd`` hooks for the sessions a runtime leaves: one switched away from (``/clear``,
``/resume``) ends in the background, so the command answers at once; the last one ends when the
front end closes, after the earlier ones have finished."""

from __future__ import annotations

import asyncio
import logging

from lull.engine.loop.agent import Agent
from lull.model.events import Event, Notice
from lull.model.hooks import SessionEndReason

log = logging.getLogger("lull.hooks")


class SessionEndings:
    """The ``SessionEnd`` runs still going for sessions the runtime switched away from."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[list[Event]]] = set()

    def later(self, agent: Agent, reason: SessionEndReason) -> None:
        """End ``agent``'s session in the background (now, when no event loop runs); what
        the hooks say goes to the tool runner's queue, shown with the next turn's events."""
        if not agent.tools.hooks.matching("SessionEnd", reason):
            agent.lifecycle.ended = True
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            _show(agent, asyncio.run(agent.lifecycle.end(reason)))
            return
        task = loop.create_task(agent.lifecycle.end(reason))
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        task.add_done_callback(lambda done: _show(agent, _result(done)))

    async def finish(self, agent: Agent, reason: SessionEndReason) -> list[Notice]:
        """End the current session (the front end closes) once the earlier ends are done;
        the notices for the user."""
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        events = await agent.lifecycle.end(reason)
        return [event for event in events if isinstance(event, Notice)]


def _result(task: asyncio.Task[list[Event]]) -> list[Event]:
    if task.cancelled():
        return []
    error = task.exception()
    if error is not None:
        log.warning("SessionEnd hooks failed: %s", error)
        return []
    return task.result()


def _show(agent: Agent, events: list[Event]) -> None:
    for event in events:
        agent.tools.progress.put_nowait(event)
