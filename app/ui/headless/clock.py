"""How long a headless turn took, and how much of it was the model's (``duration_ms``,
``duration_api_ms`` and ``num_turns`` of a ``result`` line)."""

from __future__ import annotations

import time
from collections.abc import Callable

from lull.model.events import Event, RequestFinished, SubagentUpdate, ToolFinished, ToolStarted
from lull.model.provider import Usage


class TurnClock:
    """Times one turn. lull's events do not time requests, so the API time is the turn's
    time with the stretches when a tool was running taken out (a sub-agent's requests run
    inside its ``task`` call and count as tool time); ``num_turns`` counts the turn's model
    requests (not compression summaries); ``models`` adds up each model's usage (a
    sub-agent's and a summary's requests too) and ``windows`` its context window."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.started = clock()
        self.requests = 0
        self._running: set[str] = set()
        self._tools_since = 0.0
        self._tool_seconds = 0.0
        self.models: dict[str, Usage] = {}
        self.windows: dict[str, int] = {}

    def take(self, event: Event) -> None:
        """Note a request or a tool call starting or ending."""
        match event:
            case RequestFinished(usage=usage, model=model, purpose=purpose):
                self.requests += purpose == "turn"
                self._count(model, usage)
                if event.context_window:
                    self.windows[model] = event.context_window
            case SubagentUpdate(usage=usage, model=model) if usage is not None:
                self._count(model, usage)
            case ToolStarted(call):
                if not self._running:
                    self._tools_since = self._clock()
                self._running.add(call.id)
            case ToolFinished(call) if call.id in self._running:
                self._running.discard(call.id)
                if not self._running:
                    self._tool_seconds += self._clock() - self._tools_since
            case _:
                pass

    def _count(self, model: str, usage: Usage) -> None:
        self.models[model] = self.models.get(model, Usage()) + usage

    def duration_ms(self) -> int:
        """Milliseconds since the turn started."""
        return int((self._clock() - self.started) * 1000)

    def api_ms(self) -> int:
        """Milliseconds of the turn when no tool was running."""
        tools = self._tool_seconds
        if self._running:
            tools += self._clock() - self._tools_since
        return max(0, int((self._clock() - self.started - tools) * 1000))
