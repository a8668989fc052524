"""How long lull has been waiting for the model's first token, and how long the last wait was.

A local model on a CPU may read a long prompt for a minute before it answers anything;
front ends show that lull is waiting (and for how long) instead of a silent screen, and
then the time to first token. :class:`FirstTokenWait` follows the engine's events; the
clock is injected (the TUI passes its status bar's clock, tests a fake one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import assert_never

from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    AttemptFinished,
    AttemptStarted,
    ContextEdited,
    Event,
    GuardrailTriggered,
    Notice,
    PromptOffloaded,
    RequestFinished,
    SubagentUpdate,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)

SHOW_AFTER_SECONDS = 1.0
"""A wait shorter than this is not worth a line of its own."""


ASKS_AGAIN = frozenset({"rollback", "repetition", "continuation"})
"""Guardrails after which a new request is sent, so a new wait for a first token starts."""


class FirstTokenWait:
    """Whether a request is waiting for its first token (since when), and the last wait.

    A wait starts when a turn starts, when tool results go back to the model and when a
    broken attempt is retried; the first text or thinking ends it (its length is the time
    to first token), as does a response without any text, a tool call or the turn's end.
    A summary request (compression) is part of the wait: the user waits for it too.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.since: float | None = None
        self.last_seconds: float | None = None
        self.turn_longest = 0.0  # the longest wait of the current turn

    @property
    def waiting(self) -> bool:
        """Whether no token has come since the request started."""
        return self.since is not None

    def elapsed(self) -> float:
        """Seconds waited so far (0 when not waiting)."""
        return 0.0 if self.since is None else max(0.0, self.clock() - self.since)

    def reset(self) -> None:
        """Stop waiting (the turn was interrupted or its stream ended)."""
        self.since = None

    def observe(self, event: Event) -> None:
        """Follow one engine event."""
        match event:
            case TurnStarted():
                self.since, self.turn_longest = self.clock(), 0.0
            case ToolFinished() | AttemptDiscarded():
                self.since = self.clock()
            case AssistantText() | AssistantThinking():
                self._arrived()
            case RequestFinished(purpose=purpose):
                if purpose == "turn":
                    self._arrived()
            case ToolStarted() | TurnFinished() | TurnFailed():
                self.since = None
            case GuardrailTriggered(kind=kind):
                if kind in ASKS_AGAIN:
                    self.since = self.clock()  # the reply was set aside: a new request starts
            case (
                ContextEdited()
                | Notice()
                | PromptOffloaded()
                | AttemptStarted()
                | AttemptFinished()
                | SubagentUpdate()
            ):
                pass
            case _:
                assert_never(event)

    def _arrived(self) -> None:
        if self.since is not None:
            self.last_seconds = max(0.0, self.clock() - self.since)
            self.turn_longest = max(self.turn_longest, self.last_seconds)
            self.since = None
