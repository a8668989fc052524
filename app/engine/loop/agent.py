"""One user turn: tidy the context, then stream -> run tools -> repeat until the model stops.

Before every request (tool-loop requests included) the context is fitted to
the model's window: oversized tool results are truncated for the model, auto
compression runs past the threshold, and an emergency clear of the oldest tool
outputs runs if the prompt would still not fit (``app/engine/fitting/fitter.py``). The
agent hands the fitter the shape of its requests as a value (:meth:`Agent.shape`).

The loop yields only events. How a request ended (:class:`RequestEnd`) and which reply a
step's requests settled on (:class:`ReplyEnd`) are values the loop matches on once their
events are out, as it matches on the guardrails' decisions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import assert_never

from lull.engine.calls.runner import ToolRunner
from lull.engine.calls.scope import TurnScope
from lull.engine.fitting.cache_keeper import CachePolicy
from lull.engine.fitting.fitter import ContextFitter, FitSettings
from lull.engine.guardrails.calls import CallLedger
from lull.engine.guardrails.turn import (
    Accept,
    Answered,
    Outcome,
    PrefillRefused,
    Repeated,
    RequestPlan,
    ServerFacts,
    Stop,
    TurnGuard,
    TurnSetup,
    with_plan,
)
from lull.engine.hooks.lifecycle import Lifecycle
from lull.engine.loop.config import AgentConfig, OfferedTools
from lull.engine.loop.large_prompt import OffloadFailed, offload_prompt, prompt_path
from lull.engine.loop.recovery import Recovery
from lull.engine.loop.step_calls import run_step_calls
from lull.engine.sessions.session import CANCELLED_RESULT, Session
from lull.engine.waits import wait_notice
from lull.model.approvals import Approver
from lull.model.edits import Summary
from lull.model.events import (
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
from lull.model.messages import Image, Message, Text, ToolCall, new_id
from lull.model.provider import (
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    Retrying,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    tail_ttl,
)

log = logging.getLogger("lull.loop")

RequestHook = Callable[[ModelRequest, int], None]
"""Called with every request (and its number within the turn) right before it is sent."""


@dataclass
class RequestEnd:
    """How one request ended, for the loop to match on once its events are yielded: its
    outcome for the guardrails to judge, or None when the turn failed (said as an event)."""

    outcome: Outcome | None = None


@dataclass
class ReplyEnd:
    """How a step's requests ended: the reply the guardrails accepted (saved), or None when
    the turn ended on the way (said as an event)."""

    reply: Completed | None = None


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
            media_keep=config.media_keep,
            cache=CachePolicy(config.cache_ttl, config.vendor, config.idle),
            masking=config.masking,
            compactable=config.idle.compactable,
        )
        self.fitter = ContextFitter(session, provider, settings, clock, summary_provider)
        tools.repeats.enabled = config.repeat_pointers
        tools.repeats.sent_as = self.fitter.limiter.limit_result
        self.lifecycle = Lifecycle(tools, session)
        self.fitter.before_compress = self.lifecycle.pre_compact
        self.pipeline_ms = 0.0
        self.server_facts = ServerFacts()

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

    async def run_turn(
        self, prompt: str, images: Sequence[Image] = (), scope: TurnScope | None = None
    ) -> AsyncIterator[Event]:
        """Run one user turn, yielding events; the session stays valid even if cancelled.

        ``images`` go with the prompt; ``scope`` limits the tools of this turn (a custom
        command's ``allowed-tools``). A prompt too large to send whole is saved to a file
        the model reads in parts (``engine/loop/large_prompt.py``)."""
        closed = self.session.close_open_calls(CANCELLED_RESULT)
        if closed:
            yield Notice("warning", f"gave {closed} unfinished tool call(s) a 'cancelled' result")
        for event in self.fitter.tidy_on_idle(self.shape(), self.config.idle, self.config.vendor):
            yield event
        gate = await self.lifecycle.before_prompt(prompt)
        for event in gate.events:
            yield event
        if gate.blocked is not None:
            yield TurnFailed(gate.blocked, "permission")
            return
        message_id = new_id()
        path = prompt_path(self.tools.context.output_dir, self.session.id, message_id)
        threshold = self.config.prompt_offload_threshold
        try:
            offloaded = offload_prompt(prompt, self.context_window, threshold, path)
        except OffloadFailed as failure:
            yield TurnFailed(str(failure), "prompt_too_long")
            return
        if offloaded is not None:
            yield offloaded.event
            prompt = offloaded.message
            if scope is not None:  # a custom command's allowed-tools: its prompt stays readable
                scope = replace(scope, readable=(*scope.readable, str(path)))
        self.session.add(Message("user", (Text(prompt), *images), message_id, origin="user"))
        self.tools.begin_turn(self.session)
        self.lifecycle.add_context("user-prompt-submit-hook", gate.context)
        yield TurnStarted(prompt)
        self.tools.scope = scope
        try:
            async for event in self._tool_loop():
                yield event
                while (saving := self.session.take_save_notice()) is not None:
                    yield saving
                if isinstance(event, TurnFailed):
                    for after in await self.lifecycle.stop_failure(event):
                        yield after
        except (asyncio.CancelledError, GeneratorExit):
            self.session.close_open_calls(CANCELLED_RESULT)
            raise
        finally:
            self.tools.scope = None

    async def start_session(self) -> AsyncIterator[Event]:
        """``SessionStart`` hooks as the session opens (the interactive front ends, when
        ``lifecycle.start_pending``; otherwise before the first prompt); nothing once they ran."""
        for event in await self.lifecycle.start():
            yield event

    async def compact(self, focus: str | None = None) -> AsyncIterator[Event]:
        """``/compact [focus]``: summarise the older part now, and resume auto compression."""
        closed = self.session.close_open_calls(CANCELLED_RESULT)
        if closed:
            yield Notice("warning", f"gave {closed} unfinished tool call(s) a 'cancelled' result")
        self.fitter.guard.reset()
        async for event in self.fitter.compress(self.shape(), 0, "manual", focus):
            yield event
            for after in await self._after_summary(event):
                yield after

    async def _after_summary(self, event: Event) -> list[Event]:
        """After a compression, ``PostCompact`` hooks, then ``SessionStart`` hooks again
        (source ``compact``)."""
        if isinstance(event, ContextEdited) and isinstance(event.edit, Summary):
            events = await self.lifecycle.post_compact(event.edit)
            return events + await self.lifecycle.session_start("compact")
        return []

    async def _tool_loop(self) -> AsyncIterator[Event]:
        turn = self._turn_guard()
        for step in range(1, self.config.max_turns + 1):
            end = ReplyEnd()
            async for event in self._reply(turn, end):
                yield event
            if (reply := end.reply) is None:
                return
            calls = [p for p in reply.parts if isinstance(p, ToolCall)]
            if not calls:
                text = "".join(p.text for p in reply.parts if isinstance(p, Text))
                go_on, events = await self.lifecycle.stop(text)
                for event in events:
                    yield event
                if go_on is not None:
                    continue
                yield TurnFinished(text, reply.stop_reason)
                return
            ended = False
            async for event in run_step_calls(self.tools, self.session, turn, calls, step):
                ended = ended or isinstance(event, TurnFinished)
                yield event
            if ended:
                return
        yield Notice(
            "warning",
            f"stopped after {self.config.max_turns} model requests in one turn (maxTurns); "
            "send a message to continue",
        )
        yield TurnFinished("", "max_turns")

    def _turn_guard(self) -> TurnGuard:
        """The guardrails' state for a new user turn."""
        setup = TurnSetup(
            policy=self.config.guardrails,
            max_turns=self.config.max_turns,
            max_output_tokens=self.config.max_output_tokens,
            vendor=self.config.vendor,
            model=self.provider.model,
            provider=self.provider.name,
            thinking=self.config.thinking.enabled,
            offered=OfferedTools(self.tools),
            facts=self.server_facts,
        )
        return TurnGuard(setup, CallLedger(self.tools.registry, self.config.guardrails))

    async def _reply(self, turn: TurnGuard, end: ReplyEnd) -> AsyncIterator[Event]:
        """Requests until the guardrails accept a reply, which is saved and set on ``end``; a
        rolled-back reply is saved marked and asked again; a turn that ends on the way yields
        its TurnFailed or TurnFinished and leaves ``end`` empty."""
        plan = RequestPlan()
        while True:
            if (spent := turn.spend_request()) is not None:
                yield TurnFinished("", "rollbacks", spent)
                return
            ended = RequestEnd()
            async for event in self._request(turn, plan, ended):
                yield event
            answered: Completed | None = None
            match ended.outcome:
                case None:
                    return
                case Answered(reply=reply):
                    answered = reply
                case Repeated() | PrefillRefused():
                    pass
                case _:
                    assert_never(ended.outcome)
            decision = turn.decide(ended.outcome, self.clock())
            if isinstance(decision, Accept):
                end.reply = self._keep(decision.reply)
                if answered is not None:
                    yield self._finished(answered, turn.requests, end.reply)
                for event in decision.events:
                    yield event
                return
            if decision.rolled_back is not None:
                self.session.add_rollback(decision.rolled_back)
            finished = self._finished(answered, turn.requests) if answered else None
            for event in decision.in_order(finished):
                yield event
            if isinstance(decision, Stop):
                return
            plan = decision.plan

    def _keep(self, reply: Completed) -> Completed:
        """Save an accepted reply (each tool call's id made unique first)."""
        parts = self.session.claim_call_ids(reply.parts)
        if parts:
            name = self.provider.name
            self.session.add(Message("assistant", parts, origin="model", provider=name))
        return replace(reply, parts=parts)

    async def _request(
        self, turn: TurnGuard, plan: RequestPlan, end: RequestEnd
    ) -> AsyncIterator[Event]:
        """One model request, with the context fitted first; its outcome (the reply, a stream
        cut off for repeating itself, a refused prefill) is set on ``end``.

        A cut or empty stream is retried once; a "prompt too long" (or an empty stream
        near the window) once, after compressing.
        """
        tries = Recovery(self.fitter)
        overflow = plan.compress
        index = turn.requests
        await self.tools.settle()  # tool sources still starting (lull -p waits for them)
        while not self.tools.progress.empty():  # what they said (an MCP server did not start)
            yield self.tools.progress.get_nowait()
        shape = self.shape()
        if plan.output_limit is not None:
            shape = replace(shape, max_output_tokens=plan.output_limit)
        while True:
            started = time.perf_counter()
            async for fitted in self.fitter.fit(shape, index, overflow=overflow):
                yield fitted
                for after in await self._after_summary(fitted):
                    yield after
            self.pipeline_ms = (time.perf_counter() - started) * 1000
            streamed: list[str] = []  # this attempt's answer text, until it is kept
            thought: list[str] = []
            watch = turn.watch()
            try:
                async with contextlib.aclosing(self._stream_once(index, shape, plan)) as stream:
                    async for event in stream:
                        if isinstance(event, Completed):
                            for learned in self._record(event, index):
                                yield learned
                            room = self.fitter.output_room
                            limit = self.fitter.sent_output_limit
                            end.outcome = Answered(event, "".join(streamed), limit, room)
                            return
                        if isinstance(event, AssistantText):
                            streamed.append(event.text)
                        elif isinstance(event, AssistantThinking):
                            thought.append(event.text)
                        yield event
                        if watch is not None and (found := watch.feed(event)) is not None:
                            end.outcome = Repeated("".join(streamed), "".join(thought), found)
                            return
                return  # a provider always ends with Completed or an error
            except ProviderError as error:
                if streamed or thought:
                    yield AttemptDiscarded("".join(streamed), error.message)
                if plan.prefill is not None and error.kind == "bad_request":
                    end.outcome = PrefillRefused(error.message)
                    return
                recovery = tries.after(error)
                if recovery is None:
                    message = tries.failure_message(error)
                    log.warning("request failed: %s", message)
                    yield TurnFailed(message, error.kind)
                    return
                notice, overflow = recovery
                yield notice

    def _finished(
        self, reply: Completed, index: int, kept: Completed | None = None
    ) -> RequestFinished:
        """The RequestFinished event of a request whose reply the turn has dealt with
        (``kept``: the reply as saved, whose tool calls will run)."""
        return RequestFinished(
            reply.usage,
            index,
            self.estimate_context(),
            self.context_window,
            model=reply.model or self.provider.model,
            stop_reason=reply.stop_reason,
            tool_calls=tuple(p for p in kept.parts if isinstance(p, ToolCall)) if kept else (),
        )

    async def _stream_once(
        self, index: int, shape: ModelRequest, plan: RequestPlan
    ) -> AsyncGenerator[Event | Completed]:
        started = time.perf_counter()
        request = with_plan(self.fitter.sending(shape), plan)
        self.pipeline_ms += (time.perf_counter() - started) * 1000
        for hook in self.request_hooks:
            hook(request, index)
        answering = False
        async for event in self.provider.stream(request):
            if not answering:  # the request is out: what waited for it may start now
                answering = True
                self.tools.request_sent()
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

    def _record(self, completed: Completed, index: int) -> list[Event]:
        """Note a completed request's usage (the reply itself is saved once it is kept);
        returns what it taught about the server (a notice when it left the tools out)."""
        now = self.clock()
        model = completed.model or self.provider.model
        self.session.record_response(now, completed.usage, model, self.fitter.sent_local)
        log.debug("request %d done: %s", index, completed.usage.to_dict())
        return self.fitter.observe(completed.usage)
