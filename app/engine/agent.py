"""One user turn: tidy the context, then stream -> run tools -> repeat until the model stops.

Before every request (tool-loop requests included) the context is fitted to
the model's window: oversized tool results are truncated for the model, auto
compression runs past the threshold, and an emergency clear of the oldest tool
outputs runs if the prompt would still not fit (``app/engine/fit.py``). The
agent hands the fitter the shape of its requests as a value (:meth:`Agent.shape`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import assert_never

from app.context.compress_plan import CompressionPolicy
from app.context.idle import (
    IdlePolicy,
    describe_edit,
    idle_gap_minutes,
    plan_idle_cleanup,
    thinking_rule_for,
)
from app.engine.cache_keeper import CachePolicy
from app.engine.fit import ContextFitter, FitSettings
from app.engine.session import Session
from app.engine.tool_runner import ToolRunner
from app.engine.waits import wait_notice
from app.model import defaults
from app.model.approvals import Approver
from app.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from app.model.messages import Message, Text, ToolCall
from app.model.provider import (
    CacheLifetime,
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    Retrying,
    TextDelta,
    ThinkingConfig,
    ThinkingDelta,
    ToolCallStarted,
    Vendor,
    tail_ttl,
)

log = logging.getLogger("lull.loop")

CANCELLED_RESULT = "Cancelled by the user before it finished; no result."
RequestHook = Callable[[ModelRequest, int], None]
"""Called with every request (and its number within the turn) right before it is sent."""
STREAM_RETRIES = 1


@dataclass(frozen=True)
class AgentConfig:
    """How the agent runs turns (resolved from settings and flags).

    ``context_window`` overrides the known window of the model (None: the
    table in ``app/catalog/windows.py``).
    """

    system: str
    environment: str = ""
    max_turns: int = defaults.MAX_TURNS
    max_output_tokens: int = defaults.MAX_OUTPUT_TOKENS
    thinking: ThinkingConfig = field(default_factory=ThinkingConfig)
    idle: IdlePolicy = field(default_factory=IdlePolicy)
    vendor: Vendor = "anthropic"
    prompt_caching: bool = defaults.PROMPT_CACHING
    cache_ttl: CacheLifetime = defaults.CACHE_TTL
    prompt_cache_key: bool = defaults.PROMPT_CACHE_KEY
    context_window: int | None = None
    compression: CompressionPolicy = field(default_factory=CompressionPolicy)
    tool_output_max_tokens: int = defaults.TOOL_OUTPUT_MAX_TOKENS


class Agent:
    """Runs user turns against one session, provider and tool runner.

    ``summary_provider`` (optional) writes summaries when
    ``context.compression.model`` is set; the main provider is used when it is
    None or its window is too small for the summary input.
    """

    def __init__(
        self,
        session: Session,
        provider: Provider,
        tools: ToolRunner,
        config: AgentConfig,
        clock: Callable[[], float] = time.time,
        *,
        summary_provider: Provider | None = None,
    ) -> None:
        self.session = session
        self.provider = provider
        self.tools = tools
        self.config = config
        self.clock = clock
        self.summary_provider = summary_provider
        self.request_hooks: list[RequestHook] = []
        settings = FitSettings(
            output_dir=tools.context.output_dir,
            context_window=config.context_window,
            compression=config.compression,
            tool_output_max_tokens=config.tool_output_max_tokens,
            cache=CachePolicy(config.cache_ttl, config.vendor, config.idle),
        )
        self.fitter = ContextFitter(session, provider, settings, clock, summary_provider)
        self.pipeline_ms = 0.0

    def set_approver(self, approver: Approver) -> None:
        """Who to ask before a tool call that needs approval."""
        self.tools.approver = approver

    @property
    def context_window(self) -> int:
        """The model's context window in tokens."""
        return self.fitter.context_window

    def cache_warm_until(self) -> float | None:
        """When the provider's cache of the next request's prefix goes cold if nothing reads
        it (the cache clock; None: cold or caching off), for "cache warm 4m" displays."""
        cache = self.fitter.warmth(self.shape())
        return cache.until if cache is not None else None

    def estimate_context(self) -> int:
        """Estimated prompt tokens of the next request (for "context N%" displays)."""
        return self.fitter.estimate(self.shape())

    def shape(self) -> ModelRequest:
        """The session's request without messages: what every request of it starts from."""
        return ModelRequest(
            system=self.config.system,
            environment=self.config.environment,
            messages=(),
            tools=self.tools.specs(),
            max_output_tokens=self.config.max_output_tokens,
            thinking=self.config.thinking,
            session_id=self.session.id,
            model=self.provider.model,
            prompt_caching=self.config.prompt_caching,
            cache_ttl=tail_ttl(self.config.cache_ttl),
            prompt_cache_key=self.config.prompt_cache_key,
        )

    # --- turns ------------------------------------------------------------------------------

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
                while (saving := self.session.take_save_notice()) is not None:
                    yield saving
        except (asyncio.CancelledError, GeneratorExit):
            self.session.close_open_calls(CANCELLED_RESULT)
            raise

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """``/compact [focus]``: summarise the older part now, and resume auto compression."""
        closed = self.session.close_open_calls(CANCELLED_RESULT)
        if closed:
            yield Notice("warning", f"gave {closed} unfinished tool call(s) a 'cancelled' result")
        self.fitter.guard.reset()
        async for event in self.fitter.compress(self.shape(), 0, "manual", focus):
            yield event

    def _tidy_on_idle(self) -> list[Event]:
        """Idle cleanup: only here, when a user message starts a turn; each kind at most once
        per idle gap (``context/idle.gap_starts``), and only where the cache is cold."""
        rule = thinking_rule_for(self.config.vendor)
        now, last = self.clock(), self.session.last_response_at
        cache = self.fitter.warmth(self.shape())
        view = self.session.view()
        self.fitter.cache.turn_started(idle_gap_minutes(last, now), view)
        edits = plan_idle_cleanup(
            view,
            policy=self.config.idle,
            last_response_at=last,
            now=now,
            thinking_rule=rule,
            edits=self.session.edits,
            cold_from=cache.cold_from if cache is not None else 0,
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
                    continue
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
        """One model request, with the context fitted first; appends the answer.

        A cut or empty stream is retried once; a "prompt too long" (or an empty stream
        near the window) once, after compressing.
        """
        tries = _Tries()
        overflow = False
        while True:
            started = time.perf_counter()
            async for fitted in self.fitter.fit(self.shape(), index, overflow=overflow):
                yield fitted
            self.pipeline_ms = (time.perf_counter() - started) * 1000
            streamed: list[str] = []  # this attempt's answer text, until it is kept
            partial = False
            try:
                async for event in self._stream_once(index):
                    if isinstance(event, AssistantText | AssistantThinking):
                        partial = True
                        if isinstance(event, AssistantText):
                            streamed.append(event.text)
                    if isinstance(event, Completed):
                        # unique call ids on receipt: each call gets its own result
                        parts = self.session.claim_call_ids(event.parts)
                        event = replace(event, parts=parts)
                    yield event
                    if isinstance(event, Completed):
                        self._record(event, index)
                        context = self.estimate_context()
                        yield RequestFinished(
                            event.usage,
                            index,
                            context,
                            self.context_window,
                            model=event.model or self.provider.model,
                        )
                return
            except ProviderError as error:
                if partial:
                    yield AttemptDiscarded("".join(streamed), error.message)
                recovery = self._recover(error, tries)
                if recovery is None:
                    message = self._failure_message(error)
                    log.warning("request failed: %s", message)
                    yield TurnFailed(message, error.kind)
                    return
                notice, overflow = recovery
                yield notice

    def _recover(self, error: ProviderError, tries: _Tries) -> tuple[Notice, bool] | None:
        """How to try a failed request again: the notice to show and whether to compress
        first; None when this failure is final."""
        match error.kind:
            case "stream_cut" if tries.cut < STREAM_RETRIES:
                tries.cut += 1
                return Notice("warning", f"{error.message}; retrying"), False
            case "prompt_too_long" if not tries.overflow:
                tries.overflow = True
                return self.fitter.learn_overflow(error), True
            case "empty_stream" if tries.empty < STREAM_RETRIES:
                tries.empty += 1
                if not tries.overflow and self.fitter.probable_overflow():
                    tries.overflow = True
                    return self.fitter.learn_empty_stream(error), True
                return Notice("warning", f"{error.message}; retrying"), False
            case _:
                return None

    def _failure_message(self, error: ProviderError) -> str:
        """The line a final failure is reported with."""
        if error.kind != "empty_stream":
            return error.message
        return (
            f"{error.message}, again after a retry. If the prompt is larger than the server's "
            f"context, set model.contextWindow to the server's size (lull assumes "
            f"{self.context_window:,} tokens)"
        )

    async def _stream_once(self, index: int) -> AsyncIterator[Event | Completed]:
        await self.tools.settle()  # tool sources still starting (lull -p waits for them)
        started = time.perf_counter()
        request = self.fitter.sending(self.shape())
        self.pipeline_ms += (time.perf_counter() - started) * 1000
        for hook in self.request_hooks:
            hook(request, index)
        async for event in self.provider.stream(request):
            match event:
                case TextDelta(text):
                    yield AssistantText(text)
                case ThinkingDelta(text):
                    yield AssistantThinking(text)
                case ToolCallStarted():
                    pass  # the call is shown when it runs, with its arguments
                case Retrying():
                    if (notice := wait_notice(event)) is not None:
                        yield notice
                case Completed():
                    yield event
                case _:
                    assert_never(event)

    def _record(self, completed: Completed, index: int) -> None:
        now = self.clock()
        if completed.parts:
            message = Message(
                "assistant", completed.parts, origin="model", provider=self.provider.name
            )
            self.session.add(message)
        model = completed.model or self.provider.model
        self.session.record_response(now, completed.usage, model, self.fitter.sent_local)
        self.fitter.observe(completed.usage)
        log.debug("request %d done: %s", index, completed.usage.to_dict())


@dataclass
class _Tries:
    """What one request has already tried again: cut streams, empty streams, and whether it
    compressed after an overflow (each at most once)."""

    cut: int = 0
    empty: int = 0
    overflow: bool = False
