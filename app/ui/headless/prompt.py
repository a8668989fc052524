"""A ``-p`` prompt (or a stdin message) made into a turn, as the interactive front ends make
one: a ``/command`` runs the command (a custom command's body becomes the turn's prompt, with
its arguments, ``@path`` files and ``allowed-tools``); a message has the files and images it
mentions with ``@path`` attached, and runs as up to ``guardrails.maxAttempts`` attempts.

Built-in commands run too, and what they print is the run's result (``lull -p /cost`` after
``-c``, ``/context``, ``/settings``, ``/permissions``, ``/mcp``, ``/compact``, ...). A command
that would offer a choice (``/resume`` without an id, ``/rewind`` with no number) cannot ask
anyone here: it is an error that says so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from lull.engine.loop.agent import Agent
from lull.engine.loop.attempts import run_attempts
from lull.model.events import Event, Notice
from lull.model.messages import Image
from lull.runtime import Runtime
from lull.tools.media.mentions import expand_mentions
from lull.ui.shared.commands import is_command


@dataclass(frozen=True)
class Prepared:
    """What a prompt became: a stream of events to drive like a turn, or (a built-in
    command) the lines it printed, an error when it could not run headless."""

    events: AsyncIterator[Event] | None = None
    lines: tuple[str, ...] = ()
    error: str | None = None
    shown: tuple[Event, ...] = field(default=())


def prepare(
    runtime: Runtime,
    text: str,
    fresh: Callable[[], Agent],
    images: Sequence[Image] = (),
) -> Prepared:
    """The turn ``text`` (with ``images``) asks for; ``fresh`` gives a fresh attempt's
    agent."""
    if is_command(text) and not images:
        return _command(runtime, text)
    return Prepared(_message(runtime, text, fresh, images))


async def _message(
    runtime: Runtime, text: str, fresh: Callable[[], Agent], images: Sequence[Image]
) -> AsyncIterator[Event]:
    expansion = expand_mentions(text, runtime.workspace, runtime.image_refusal())
    for mention in expansion.mentions:
        yield Notice("info" if mention.attached else "warning", mention.note)
    attempts = runtime.settings.guardrails.max_attempts
    every = (*images, *expansion.images)
    async for event in run_attempts(runtime.agent, fresh, expansion.prompt, attempts, every):
        yield event


def _command(runtime: Runtime, text: str) -> Prepared:
    from lull.commands import run_command  # only when a command runs

    result = run_command(runtime, text)
    name = text.strip().split()[0]
    if result.error:
        return Prepared(error=" ".join(result.lines) or f"{name} failed")
    if result.sessions or result.follow_ups or result.prefill:
        return Prepared(
            error=f"{name} offers a choice, and -p cannot ask; give it its argument "
            "(e.g. /resume ID, /rewind N) or run it in lull's interactive UI"
        )
    if result.stream is not None:
        return Prepared(result.stream, result.lines, shown=result.events)
    return Prepared(lines=result.lines, shown=result.events)
