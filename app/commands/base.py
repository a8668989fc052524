"""The command contract (what a command receives and gives back) and helpers commands share."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.engine.agent import Agent
from app.engine.session import Session
from app.model.events import Event
from app.model.provider import ModelRequest, Provider

if TYPE_CHECKING:
    from app.runtime import Runtime

RequestHook = Callable[[ModelRequest, int], None]


@dataclass(frozen=True)
class SessionChoice:
    """One saved session a front end can offer in a /resume picker."""

    id: str
    created_at: float
    updated_at: float
    first_prompt: str
    message_count: int


@dataclass(frozen=True, eq=False)
class CommandResult:
    """What a command produced; a front end renders it without knowing the command.

    - ``lines``: text to show, one line each (plain text, no markup).
    - ``error``: the lines are a one-line hint about a bad command or argument.
    - ``events``: engine events to render like those of a turn (e.g. a ContextEdited).
    - ``quit``: leave lull (after closing the session).
    - ``sessions``: non-empty means "offer a picker"; then call
      ``resume_session(target, choice.id)`` with the choice (or do nothing on cancel).
    - ``stream``: events to drive exactly like ``agent.run_turn`` (e.g. /compact);
      cancelling it is as safe as cancelling a turn.
    - ``session_changed``: the agent now works on another session (/clear, /resume):
      reset the conversation view and redraw it from ``agent.session.transcript``.
    """

    lines: tuple[str, ...] = ()
    events: tuple[Event, ...] = ()
    quit: bool = False
    error: bool = False
    sessions: tuple[SessionChoice, ...] = ()
    stream: AsyncIterator[Event] | None = None
    session_changed: bool = False


def hint(text: str) -> CommandResult:
    """A one-line hint about bad input."""
    return CommandResult((text,), error=True)


def say(*lines: str) -> CommandResult:
    """Plain lines to show."""
    return CommandResult(tuple(lines))


class CommandContext:
    """What a command can reach: the agent, and the runtime it was built from if any.

    Front ends pass their :class:`~app.runtime.Runtime` (settings, provider config,
    session store); a bare :class:`Agent` (as in engine tests) supports only the
    commands that need nothing else, the others say so in one line.
    """

    def __init__(self, agent: Agent, runtime: Runtime | None = None) -> None:
        self._agent = agent
        self.runtime = runtime

    @property
    def agent(self) -> Agent:
        """The current agent (a command may replace the runtime's agent)."""
        return self.runtime.agent if self.runtime is not None else self._agent

    @property
    def model(self) -> str:
        """The model requests go to now."""
        if self.runtime is not None:
            return self.runtime.provider_config.model
        return self.agent.provider.model

    @property
    def window_override(self) -> int | None:
        """``model.contextWindow`` from settings, if set."""
        if self.runtime is None:
            return None
        return self.runtime.loaded.settings.model.context_window


def replace_agent(
    runtime: Runtime, *, session: Session | None = None, provider: Provider | None = None
) -> Agent:
    """Give the runtime a new agent on another session or provider; the rest is kept.

    A new agent (rather than changing the old one's attributes) starts its
    per-session engine state afresh: token accounting, compression guard.
    Tools (with the front end's approver), config, clock and request hooks carry over.
    """
    old = runtime.agent
    extras: dict[str, Any] = {}
    if hasattr(old, "summary_provider"):
        extras["summary_provider"] = old.summary_provider
    agent = Agent(
        session or old.session,
        provider or old.provider,
        old.tools,
        old.config,
        old.clock,
        **extras,
    )
    agent.request_hooks = (
        _hooks_for(session, old.request_hooks) if session is not None else old.request_hooks
    )
    runtime.agent = agent
    return agent


def _hooks_for(session: Session, hooks: list[RequestHook]) -> list[RequestHook]:
    """The request hooks for a new session: a cache-break detector starts afresh on it."""
    from app.context.cachebreak import CacheBreakDetector

    return [
        CacheBreakDetector(lambda: session.edits) if isinstance(h, CacheBreakDetector) else h
        for h in hooks
    ]


Handler = Callable[[CommandContext, str], CommandResult]


def context_for(target: Agent | Runtime | CommandContext) -> CommandContext:
    """The command context for what a front end holds (an agent or a runtime)."""
    if isinstance(target, CommandContext):
        return target
    if isinstance(target, Agent):
        return CommandContext(target)
    return CommandContext(target.agent, target)


def needs_runtime(name: str) -> CommandResult:
    """The hint for a command run without a runtime."""
    return hint(f"/{name} is not available here: it needs the settings and session store")


def context_window(target: Agent | Runtime | CommandContext) -> int:
    """The context window of the current model (``model.contextWindow`` wins)."""
    from app.catalog.windows import context_window_for

    ctx = context_for(target)
    return int(context_window_for(ctx.model, ctx.window_override))


def session_cost(target: Agent | Runtime | CommandContext) -> float | None:
    """The session's cost so far in USD, each model's usage at its own prices (None when a
    model's price is unknown)."""
    from app.catalog.pricing import cost_by_model

    ctx = context_for(target)
    overrides = ctx.runtime.loaded.settings.pricing if ctx.runtime else ()
    return cost_by_model(ctx.agent.session.usage_by_model, overrides)
