"""Fitting every request inside the model's window: the engine side of compression.

:class:`ContextFitter` owns one session's token accounting (tokenizer cache,
usage calibration, the window) and runs, before each request:

1. the per-result token limit (``truncate.py``) on the view;
2. the light step once the estimate crosses the light line: superseded tool outputs
   become pointers, no model call (``light.py``);
3. auto compression once the estimate reaches the threshold (``compressor.py``),
   under the anti-thrash guard (``compress_plan.py``), critical content pinned;
4. an emergency clear of the oldest standard (then important) tool outputs at the
   emergency line or when the prompt (with a safety margin) would still not fit.

Which steps run, and when, is decided in one place: :class:`~lull.context.stages.
StageSchedule` (the light step at 0.5 of the window, full compression at 0.8, the
emergency clear at 0.9, each at most once per crossing of its line).

Summary compression itself is ``fit_compress.py``; what a refused or empty answer teaches
about the window is ``overflow.py``. Every request's output limit is clamped to what the
window has left after the prompt. It yields the same events the loop does, so front ends
show every step.

The agent passes the *shape* of its requests (a :class:`ModelRequest` without messages:
system prompt, environment, tools, thinking, limits) to every call as a value; the fitter
counts that prefix, derives the summary request from it, and never calls the agent.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lull.catalog.cache_policy import TTL_MINUTES
from lull.context.cache_clock import Warmth
from lull.context.compress_plan import (
    SAFETY_MARGIN,
    Budget,
    CompressionGuard,
    CompressionPolicy,
    clear_result,
    emergency_target,
    make_budget,
    plan_emergency_clear,
)
from lull.context.idle import (
    DEFAULT_COMPACTABLE,
    IdlePolicy,
    describe_edit,
    gap_matters,
    idle_gap_minutes,
    plan_idle_cleanup,
    thinking_rule_for,
)
from lull.context.masking import MaskingPolicy, MaskingState
from lull.context.stages import StageSchedule
from lull.context.tiers import classify
from lull.context.tokens import TokenCounter, UsageCalibration
from lull.context.truncate import ToolOutputLimiter
from lull.engine.fitting import overflow
from lull.engine.fitting.cache_keeper import CacheKeeper, CachePolicy
from lull.engine.fitting.compression import BeforeCompress, Sizing, SummarySteps
from lull.engine.fitting.exact_counts import SavedCounts, tokenizer_needed
from lull.engine.fitting.outputs import FullTextStore
from lull.engine.fitting.steps import (
    cold_since,
    light_step,
    masking_step,
    media_step,
    write_per_read,
)
from lull.engine.fitting.summary import Compressor
from lull.engine.fitting.tool_rendering import ignored_tools_notice
from lull.engine.fitting.window import Window
from lull.engine.sessions.session import Session
from lull.model import defaults
from lull.model.edits import ClearToolResults, ContextEdit, Restore, SummaryReason
from lull.model.events import ContextEdited, Event, Notice
from lull.model.messages import Message, ToolResult
from lull.model.provider import ModelRequest, Provider, ProviderError, Usage, Vendor

log = logging.getLogger("lull.compress")
idle_log = logging.getLogger("lull.idle")

MIN_OUTPUT_TOKENS = 256
"""The smallest output limit a request is sent with (see :func:`output_limit`)."""
UNCALIBRATED_MARGIN = 0.2
"""How much larger than lull's estimate a server may count a prompt before any usage was
reported (another tokenizer, the chat template): the output limit leaves room for it."""


@dataclass(frozen=True)
class FitSettings:
    """The settings the fitter works with (from AgentConfig)."""

    output_dir: Path
    context_window: int | None = None
    compression: CompressionPolicy = field(default_factory=CompressionPolicy)
    tool_output_max_tokens: int = defaults.TOOL_OUTPUT_MAX_TOKENS
    media_keep: int = defaults.MEDIA_KEEP
    cache: CachePolicy = field(default_factory=CachePolicy)
    masking: MaskingPolicy = field(default_factory=MaskingPolicy)
    compactable: frozenset[str] = DEFAULT_COMPACTABLE


class ContextFitter:
    """Token accounting, truncation, compression and the emergency net for one session.

    Every method that counts a request takes ``shape``: the session's request without
    messages (system prompt, environment, tools, thinking, output limit), as a value.
    """

    def __init__(
        self,
        session: Session,
        provider: Provider,
        settings: FitSettings,
        clock: Callable[[], float],
        summary_provider: Provider | None = None,
    ) -> None:
        self.session = session
        self.provider = provider
        self.summary_provider = summary_provider
        self.settings = settings
        self.clock = clock
        # counts are estimated until a decision could depend on them (count_exactly_if_near)
        self.counter = TokenCounter(provider.model, deferred=True)
        self.calibration = UsageCalibration()
        if session.record.calibration is not None:  # a resumed session: as it was last
            self.calibration.observe(*session.record.calibration)
        self.stages = StageSchedule()
        self.limiter = ToolOutputLimiter(
            settings.tool_output_max_tokens,
            TokenCounter(provider.model),  # truncating needs exact counts, of long results only
            FullTextStore(settings.output_dir).save,
        )
        self.compressor = Compressor(self.counter, clock)
        self.cache = CacheKeeper(settings.cache, provider.model)
        self.window = Window(provider.model, settings.context_window)
        self.sent_local = 0
        self.output_room: int | None = None
        self.sent_output_limit: int | None = None
        """The output limit the request last sent went out with."""
        self.sent_tools_local = 0
        """Local tokens of the tool definitions the request last sent."""
        self.tools_judged = False
        """Whether a reported prompt has told if the server renders the tools."""
        """The most output the window left the request last sent (its prompt estimate with
        the margin taken off the window; at least MIN_OUTPUT_TOKENS); None before one."""
        self._edits_sent = len(session.edits)  # edits recorded when the last request went
        self._memo: tuple[tuple[int, int], list[Message], int] | None = None
        self.before_compress: BeforeCompress | None = None
        self.summaries = SummarySteps(
            session,
            self.compressor,
            self.stages,
            self.calibration,
            self.cache,
            clock,
            settings.compression,
            self.limiter.limit_result,
        )
        self.saved_counts = SavedCounts(session, self.counter, self.limiter)
        self.saved_counts.restore()

    @property
    def guard(self) -> CompressionGuard:
        """Auto compression's anti-thrash and failure state (``/compact`` resets it)."""
        return self.stages.guard

    # --- accounting -------------------------------------------------------------------------

    @property
    def context_window(self) -> int:
        """The model's window in tokens (setting, table, or what the provider said)."""
        return self.window.size

    def prompt_too_long(self, error: ProviderError) -> Notice:
        """The provider refused the request last sent as too long: learn from it."""
        return overflow.prompt_too_long(error, self.window, self.calibration, self.sent_local)

    def overflow_probable(self) -> bool:
        """Whether an empty answer to the request last sent probably means it did not fit."""
        return overflow.overflow_probable(self.window, self.calibration, self.sent_local)

    def empty_stream(self, error: ProviderError) -> Notice:
        """An empty answer near the window: learn from it as from an overflow."""
        return overflow.empty_stream(error, self.window, self.calibration, self.sent_local)

    def budget(self, shape: ModelRequest) -> Budget:
        """The token budget of the next request."""
        return make_budget(self.context_window, self.settings.compression, shape.max_output_tokens)

    def model_view(self) -> list[Message]:
        """The messages the next request sends: the view, oversized tool results truncated."""
        return list(self._current()[0])

    def _current(self) -> tuple[list[Message], int]:
        """The model view and its local tokens, identified by the lengths of transcript and
        edits (both only grow); messages added with no new edit just extend it."""
        key = (len(self.session.transcript), len(self.session.edits))
        memo = self._memo
        if memo is not None and (appended := self.session.view_since(*memo[0])) is not None:
            added = self.limiter.apply(appended)
            memo = (key, [*memo[1], *added], memo[2] + self.counter.messages(added))
        elif memo is None or memo[0] != key:
            view = self.limiter.apply(self.session.view())
            memo = (key, view, self.counter.messages(view))
        self._memo = memo
        return memo[1], memo[2]

    def local_tokens(self, shape: ModelRequest, messages: Sequence[Message] | None = None) -> int:
        """Local token count of a whole request (prefix + ``messages``, default: the view)."""
        tokens = self._current()[1] if messages is None else self.counter.messages(messages)
        return self.counter.prefix(shape.system, shape.environment, shape.tools) + tokens

    def estimate(self, shape: ModelRequest, messages: Sequence[Message] | None = None) -> int:
        """Estimated prompt tokens of a request, reconciled with reported usage."""
        return self.calibration.estimate(self.local_tokens(shape, messages))

    def sending(self, shape: ModelRequest) -> ModelRequest:
        """The request about to be sent (``shape`` with the model view, its output limit
        clamped to what the window has left); notes its size for calibration."""
        self.sent_local = self.local_tokens(shape)
        self.sent_tools_local = self.counter.tools(shape.tools) if shape.tools else 0
        self._edits_sent = len(self.session.edits)
        self.saved_counts.save()
        margin = SAFETY_MARGIN if self.calibration.calibrated else UNCALIBRATED_MARGIN
        prompt = math.ceil(self.calibration.estimate(self.sent_local) * (1 + margin))
        self.output_room = output_room(self.context_window, prompt)
        limit = output_limit(shape.max_output_tokens, self.context_window, prompt)
        self.sent_output_limit = limit
        thinking = shape.thinking
        if thinking.budget_tokens is not None and thinking.budget_tokens >= limit:
            thinking = replace(thinking, budget_tokens=limit // 2)
        request = replace(
            shape, messages=self.model_view(), max_output_tokens=limit, thinking=thinking
        )
        return self.cache.prepare(request, self.clock())

    def observe(self, usage: Usage) -> list[Event]:
        """Note the usage the provider reported for the request last sent (unreported usage
        teaches nothing: the local estimate stays as it was); the first reported prompt
        also tells whether the server rendered the tools (a notice when it did not)."""
        self.cache.answered(usage)
        if not usage.reported:
            return []
        self.calibration.observe(usage.prompt_tokens, self.sent_local)
        if self.tools_judged:
            return []
        self.tools_judged = True
        notice = ignored_tools_notice(usage.prompt_tokens, self.sent_local, self.sent_tools_local)
        return [notice] if notice is not None else []

    def warmth(self, shape: ModelRequest) -> Warmth | None:
        """How much of the next request's prefix the provider still caches (the cache
        clock); None when prompt caching is off (no cache to wait for)."""
        if not shape.prompt_caching:
            return None
        request = replace(shape, messages=self.model_view())
        self.cache.seed(request, self.session.last_response_at)
        return self.cache.warmth(request, self.clock())

    def tidy_on_idle(self, shape: ModelRequest, policy: IdlePolicy, vendor: Vendor) -> list[Event]:
        """Idle cleanup, when a user message starts a turn: each kind at most once per idle
        gap (``context/idle.gap_starts``), and only where the cache is cold."""
        now, last = self.clock(), self.session.last_response_at
        cache, gap = self.warmth(shape), idle_gap_minutes(last, now)
        view = self.session.view() if gap_matters(gap, policy) else []  # (else nothing reads it)
        fixed = self.counter.prefix(shape.system, shape.environment, shape.tools)
        self.cache.turn_started(gap, view, fixed)
        edits = plan_idle_cleanup(
            view,
            policy=policy,
            last_response_at=last,
            now=now,
            thinking_rule=thinking_rule_for(vendor),
            edits=self.session.edits,
            cold_from=cache.cold_from if cache is not None else 0,
        )
        events: list[Event] = []
        for edit in edits:
            self.session.add_edit(edit)
            line = describe_edit(edit, policy)
            idle_log.info(line)
            events.append(ContextEdited(edit, line))
        return events

    # --- before a request -------------------------------------------------------------------

    def decision_points(self, shape: ModelRequest) -> tuple[int, ...]:
        """The prompt sizes (provider tokens) at which something is decided before a request:
        the light line, the compression triggers (cold line, full line, hot-cache bypass),
        the emergency line, the input limit (with its margin), and where the output limit
        starts to be clamped. (The watch line only colours the status, an estimate is good
        enough for it.)"""
        budget = self.budget(shape)
        over = budget.input_limit / (1 + SAFETY_MARGIN)
        room = (budget.window - shape.max_output_tokens) / (1 + SAFETY_MARGIN)
        return (
            budget.light,
            budget.cold,
            budget.trigger,
            budget.emergency - budget.growth,
            budget.emergency,
            math.floor(over),
            max(0, math.floor(room)),
        )

    def count_exactly_if_near(self, shape: ModelRequest) -> bool:
        """Load the tokenizer once counting the estimated part exactly could move the prompt
        across one of :meth:`decision_points` (:func:`tokenizer_needed`); True when it did."""
        if self.counter.exact:
            return False
        prefix = self.counter.prefix(shape.system, shape.environment, shape.tools)
        estimated = prefix + self.counter.estimated(self._current()[0])
        local = self.local_tokens(shape)
        points = self.decision_points(shape)
        if not tokenizer_needed(local, estimated, self.calibration, points):
            return False
        self.count_exactly(shape)
        return True

    def count_exactly(self, shape: ModelRequest) -> None:
        """Count with the tokenizer from now on, keeping the calibrated estimate continuous."""
        if self.counter.exact:
            return
        before = self.local_tokens(shape)
        self.counter.load_exact()
        self._memo = None
        self.saved_counts.recount()
        after = self.local_tokens(shape)
        self.calibration.shift(after - before)
        self.sent_local = max(0, self.sent_local + after - before)
        log.debug("tokens: counting exactly from now on (~%d tokens, estimated %d)", after, before)

    async def fit(
        self, shape: ModelRequest, index: int, *, overflow: bool = False
    ) -> AsyncIterator[Event]:
        """The steps the schedule calls for: light step, compression, emergency clear (when
        each runs depends on whether the cache is warm: ``context/stages.py``)."""
        self.count_exactly_if_near(shape)
        budget = self.budget(shape)
        estimate = self.estimate(shape)
        cache = self.warmth(shape)
        self.stages.seen(estimate, budget)
        log.debug(
            "context: ~%d tokens (%d%% of %d), cache %s",
            estimate,
            budget.percent(estimate),
            budget.window,
            "off" if cache is None else "warm" if cache.conversation_warm else "cold",
        )
        if index > 0:
            for event in self._mask(shape, index, cache):
                yield event
            estimate = self.estimate(shape)
        if self.stages.light_due(estimate, budget, cache):
            self.stages.light_ran()
            view, now = self.model_view(), self.clock()
            for event in light_step(
                self.session, view, self.counter, now, self.local_tokens(shape)
            ):
                yield event
            estimate = self.estimate(shape)
            self.stages.seen(estimate, budget)
        if self.stages.compress_due(estimate, budget, overflow=overflow, cache=cache):
            reason: SummaryReason = "overflow" if overflow else "auto"
            lines = self.stages.compress_budget(budget, cache)
            async for event in self.compress(shape, index, reason, None, lines):
                yield event
            estimate = self.estimate(shape)
        if self.stages.emergency_due(estimate, budget):
            for event in self._emergency_clear(shape, estimate, budget):
                yield event
        for event in self._media_window(shape):
            yield event

    def _mask(self, shape: ModelRequest, index: int, cache: Warmth | None) -> list[Event]:
        """Cache-aware masking inside a turn (``context/masking.py``): a batch of old tool
        results becomes recall pointers when that pays over the turn's remaining requests."""
        policy = self.settings.masking
        if not policy.enabled or index < policy.min_requests:
            return []
        view = self.model_view()
        state = MaskingState(
            sizes=[self.counter.message(m) for m in view],
            prefix=self.counter.prefix(shape.system, shape.environment, shape.tools),
            requests=index,
            warm=cache is None or cache.conversation_warm,
            write_per_read=write_per_read(self.provider.model),
        )
        return masking_step(
            self.session, view, state, policy, self.settings.compactable, self._clear_saving,
            self.clock(),
        )  # fmt: skip

    def _media_window(self, shape: ModelRequest) -> list[Event]:
        """The media window, at the moments the schedule allows (``StageSchedule.media_due``)."""
        recorded = self.session.edits[self._edits_sent :]
        rewriting = any(not isinstance(e, Restore) for e in recorded)
        now = self.clock()
        cold = cold_since(self.session, TTL_MINUTES[shape.cache_ttl], now)
        if not self.stages.media_due(rewriting=rewriting, cold=cold):
            return []
        return media_step(self.session, self.settings.media_keep, now)

    def estimate_with(self, shape: ModelRequest, edit: ContextEdit) -> int:
        """Estimated prompt tokens if ``edit`` were recorded (nothing is recorded)."""
        view = self.limiter.apply(self.session.view_with(edit))
        return self.estimate(shape, view)

    def compress(
        self,
        shape: ModelRequest,
        index: int,
        reason: SummaryReason,
        focus: str | None,
        lines: Budget | None = None,
    ) -> AsyncIterator[Event]:
        """One compression attempt (reason "auto", "overflow" or "manual"), with its events
        (:class:`~lull.engine.fitting.compression.SummarySteps`, given what it works from)."""
        self.count_exactly(shape)
        view = self.model_view()
        cache = self.warmth(shape)
        sizing = Sizing(
            shape=shape,
            budget=self.budget(shape),
            view=view,
            estimate=self.estimate(shape, view),
            local=self.local_tokens(shape, view),
            prefix=self.counter.prefix(shape.system, shape.environment, shape.tools),
            warm=cache is not None and cache.conversation_warm,
            estimate_with=lambda messages: self.estimate(shape, messages),
            estimate_edit=lambda edit: self.estimate_with(shape, edit),
        )
        providers = (self.provider, self.summary_provider)
        before = self.before_compress
        return self.summaries.compress(sizing, providers, index, reason, focus, lines, before)

    def _emergency_clear(self, shape: ModelRequest, estimate: int, budget: Budget) -> list[Event]:
        """Clear the oldest tool outputs until the prompt fits the window (with a notice)."""
        excess = math.ceil((estimate - emergency_target(budget)) / self.calibration.ratio)
        view = self.model_view()
        ids, freed = plan_emergency_clear(view, excess, self._clear_saving, classify(view))
        events: list[Event] = []
        if ids:
            edit = ClearToolResults(
                tuple(ids), reason="emergency", tokens_saved=freed, kept=0, at=self.clock()
            )
            self.session.add_edit(edit)
            line = (
                f"context over the window: cleared the {len(ids)} oldest tool output(s) "
                f"(~{freed:,} tokens) so the request fits"
            )
            log.warning(line)
            events.append(ContextEdited(edit, line))
        after = self.estimate(shape)
        self.guard.seen(after)
        if budget.over_limit(after):
            events.append(
                Notice(
                    "warning",
                    f"the context (~{after:,} tokens) is still over what {self.provider.model} "
                    f"accepts (~{budget.input_limit:,}); the request may fail. "
                    "Try /compact, or start a new session",
                )
            )
        return events

    def _clear_saving(self, result: ToolResult) -> int:
        return self.counter.part(result) - self.counter.part(clear_result(result))


def output_room(window: int, prompt: int) -> int:
    """What the window has left for output after ``prompt`` (the estimate with its margin),
    never below :data:`MIN_OUTPUT_TOKENS` (when even that does not fit, compression already
    runs)."""
    return max(MIN_OUTPUT_TOKENS, window - prompt)


def output_limit(requested: int, window: int, prompt: int) -> int:
    """The ``max_output_tokens`` to send: ``requested``, but no more than
    :func:`output_room`."""
    return min(requested, output_room(window, prompt))
