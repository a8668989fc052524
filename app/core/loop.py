"""One user turn: tidy the context, then stream -> run tools -> repeat until the model stops."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from app.context.idle import IdlePolicy, describe_edit, plan_idle_cleanup, thinking_rule_for
from app.core.approvals import Approver
from app.core.events import (
    AssistantText,
    AssistantThinking,
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from app.core.messages import Message, Text, ToolCall
from app.core.provider import (
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    TextDelta,
    ThinkingConfig,
    ThinkingDelta,
)
from app.core.session import Session
from app.core.tool_runner import ToolRunner

log = logging.getLogger("lull.loop")

CANCELLED_RESULT = "Cancelled by the user before it finished; no result."
STREAM_RETRIES = 1


@dataclass(frozen=True)
class AgentConfig:
    """How the agent runs turns (resolved from settings and flags)."""

    system: str
    environment: str = ""
    max_turns: int = 100
    max_output_tokens: int = 8192
    thinking: ThinkingConfig = field(default_factory=ThinkingConfig)
    idle: IdlePolicy = field(default_factory=IdlePolicy)
    vendor: str = "anthropic"
    cache_ttl: Literal["5m", "1h"] = "5m"
    prompt_cache_key: bool = True


class Agent:
    """Runs user turns against one session, provider and tool runner."""

    def __init__(
        self,
        session: Session,
        provider: Provider,
        tools: ToolRunner,
        config: AgentConfig,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.session = session
        self.provider = provider
        self.tools = tools
        self.config = config
        self.clock = clock
        self.request_hooks: list[Callable[[ModelRequest, int], None]] = []

    def set_approver(self, approver: Approver) -> None:
        """Who to ask before a tool call that needs approval."""
        self.tools.approver = approver

    async def run_turn(self, prompt: str) -> AsyncIterator[Event]:
        """Run one user turn, yielding events; the session stays valid even if cancelled."""
        closed = self.session.close_open_calls(CANCELLED_RESULT)
        if closed:
            yield Notice("warning", f"gave {closed} unfinished tool call(s) a 'cancelled' result")
        for event in self._tidy_on_idle():
            yield event
        self.session.add(Message("user", (Text(prompt),), origin="user"))
        yield TurnStarted(prompt)
        try:
            async for event in self._tool_loop():
                yield event
        except (asyncio.CancelledError, GeneratorExit):
            self.session.close_open_calls(CANCELLED_RESULT)
            raise

    def _tidy_on_idle(self) -> list[Event]:
        """Idle cleanup: only here, when a user message starts a turn; once per idle episode."""
        last = self.session.last_response_at
        if last is not None and any(edit.at >= last for edit in self.session.edits):
            return []  # this episode was already handled (a cleanup, or a restore since)
        rule = thinking_rule_for(self.config.vendor)
        edits = plan_idle_cleanup(
            self.session.view(),
            policy=self.config.idle,
            last_response_at=self.session.last_response_at,
            now=self.clock(),
            thinking_rule=rule,
        )
        events: list[Event] = []
        for edit in edits:
            self.session.add_edit(edit)
            line = describe_edit(edit, self.config.idle)
            log.info(line)
            events.append(ContextEdited(edit, line))
        return events

    async def _tool_loop(self) -> AsyncIterator[Event]:
        for index in range(1, self.config.max_turns + 1):
            completed: Completed | None = None
            async for event in self._request(index):
                if isinstance(event, Completed):
                    completed = event
                else:
                    yield event
            if completed is None:
                return
            calls = [p for p in completed.parts if isinstance(p, ToolCall)]
            if not calls:
                text = "".join(p.text for p in completed.parts if isinstance(p, Text))
                yield TurnFinished(text, completed.stop_reason)
                return
            async for event in self.tools.run_calls(self.session, calls):
                yield event
        yield Notice(
            "warning",
            f"stopped after {self.config.max_turns} model requests in one turn (maxTurns); "
            "send a message to continue",
        )
        yield TurnFinished("", "max_turns")

    async def _request(self, index: int) -> AsyncIterator[Event | Completed]:
        """One model request (with one retry of a cut stream); appends the answer."""
        for attempt in range(STREAM_RETRIES + 1):
            try:
                async for event in self._stream_once(index):
                    yield event
                    if isinstance(event, Completed):
                        self._record(event, index)
                        yield RequestFinished(event.usage, index, self.session.context_tokens())
                return
            except ProviderError as error:
                if error.kind == "stream_cut" and attempt < STREAM_RETRIES:
                    yield Notice("warning", f"{error.message}; retrying")
                    continue
                log.warning("request failed: %s", error.message)
                yield TurnFailed(error.message, error.kind)
                return

    async def _stream_once(self, index: int) -> AsyncIterator[Event | Completed]:
        request = self._build_request()
        for hook in self.request_hooks:
            hook(request, index)
        async for event in self.provider.stream(request):
            if isinstance(event, TextDelta):
                yield AssistantText(event.text)
            elif isinstance(event, ThinkingDelta):
                yield AssistantThinking(event.text)
            elif isinstance(event, Completed):
                yield event

    def _build_request(self) -> ModelRequest:
        return ModelRequest(
            system=self.config.system,
            environment=self.config.environment,
            messages=self.session.view(),
            tools=self.tools.specs(),
            max_output_tokens=self.config.max_output_tokens,
            thinking=self.config.thinking,
            session_id=self.session.id,
            cache_ttl=self.config.cache_ttl,
            prompt_cache_key=self.config.prompt_cache_key,
        )

    def _record(self, completed: Completed, index: int) -> None:
        now = self.clock()
        if completed.parts:
            message = Message(
                "assistant", completed.parts, origin="model", provider=self.provider.name
            )
            self.session.add(message)
        self.session.record_response(now, completed.usage, completed.model or self.provider.model)
        log.debug("request %d done: %s", index, completed.usage.to_dict())

    def with_config(self, **changes: object) -> Agent:
        """A copy of this agent with some config values changed (same session)."""
        return Agent(
            self.session,
            self.provider,
            self.tools,
            replace(self.config, **changes),  # type: ignore[arg-type]
            self.clock,
        )
