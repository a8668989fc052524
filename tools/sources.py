"""Tools that arrive after start-up: a source (the MCP client) adds them to the registry.

The runtime creates the sources; the tool runner (``app/engine/calls/runner.py``) asks them to
:meth:`ToolSource.settle` before each model request, which waits only where the run wants
every tool in the first request (``lull -p``); interactive front ends never wait, and a
source that comes up late appends its tools, so an existing prefix of tools never changes.
What a source has to say (:meth:`ToolSource.take_notices`) goes to the runner's progress
queue as it settles, and the turn shows it before its next request.
"""

from __future__ import annotations

from typing import Protocol

from lull.model.events import Notice


class ToolSource(Protocol):
    """Something that registers tools in the background (MCP servers)."""

    def start(self) -> None:
        """Begin starting in the background on the running event loop (idempotent; without
        a running loop, nothing happens until the next call)."""
        ...

    async def settle(self) -> None:
        """Return once what this run waits for has started (or failed); at once when the
        run does not wait (the interactive front ends)."""
        ...

    def begin_turn(self) -> None:
        """A user turn begins: changes held back so that the tools stay the same within a
        turn take effect now."""
        ...

    def request_sent(self) -> None:
        """A model request is out (its answer has begun): what was held back so as not to
        compete with it (servers that need not be up for it) may start."""
        ...

    def take_notices(self) -> list[Notice]:
        """What the user should hear since the last call (a server that did not start, a
        tool left out); each notice is given once."""
        ...

    async def aclose(self) -> None:
        """Stop everything started (processes, connections)."""
        ...
