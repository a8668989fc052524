"""Summary compression: plan the split, run the PreCompact hooks, ask for the summary (with the
cache read when it is warm, another model when one is set and its window fits), record the
edit or say why it failed.

The fitter owns the providers and the token counter: it counts what a compression works from
and hands it over as a value (:class:`Sizing`); :class:`SummarySteps` keeps only the small
objects it records into (the session, the stage schedule, the calibration, the cache keeper).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from lull.catalog.windows import context_window_for
from lull.context.compress_plan import SAFETY_MARGIN, Budget, CompressionPolicy, min_head_tokens
from lull.context.stages import StageSchedule
from lull.context.tokens import UsageCalibration
from lull.engine.fitting.cache_keeper import CacheKeeper
from lull.engine.fitting.steps import pinned_for, worked_on
from lull.engine.fitting.summary import Attempt, CompressionJob, Compressor
from lull.engine.sessions.session import Session
from lull.engine.waits import wait_notice
from lull.model.edits import ContextEdit, SummaryReason
from lull.model.events import ContextEdited, Event, Notice, RequestFinished
from lull.model.messages import Message, ToolResult
from lull.model.provider import ModelRequest, Provider

BeforeCompress = Callable[[SummaryReason, str | None], Awaitable[list[Event]]]
"""Called before a summary is asked for (the PreCompact hooks); returns events to show."""

log = logging.getLogger("lull.compress")


@dataclass(frozen=True)
class Sizing:
    """What one compression works from, counted by the fitter: the request's shape and its
    budget, the model view, the view's estimate and local tokens, the tokens of the request's
    prefix, whether the cache is warm, the estimate of the request with other messages
    (None: the view as it is then), and with one more edit recorded (nothing is recorded)."""

    shape: ModelRequest
    budget: Budget
    view: list[Message]
    estimate: int
    local: int
    prefix: int
    warm: bool
    estimate_with: Callable[[Sequence[Message] | None], int]
    estimate_edit: Callable[[ContextEdit], int]


class SummarySteps:
    """The summary compression of one session: what it records into, and the providers."""

    def __init__(
        self,
        session: Session,
        compressor: Compressor,
        stages: StageSchedule,
        calibration: UsageCalibration,
        cache: CacheKeeper,
        clock: Callable[[], float],
        policy: CompressionPolicy,
        limit_result: Callable[[ToolResult], ToolResult],
    ) -> None:
        self.session = session
        self.compressor = compressor
        self.stages = stages
        self.calibration = calibration
        self.cache = cache
        self.clock = clock
        self.policy = policy
        self.limit_result = limit_result

    async def compress(
        self,
        sizing: Sizing,
        providers: tuple[Provider, Provider | None],
        index: int,
        reason: SummaryReason,
        focus: str | None,
        lines: Budget | None = None,
        before: BeforeCompress | None = None,
    ) -> AsyncIterator[Event]:
        """One compression attempt (reason "auto", "overflow" or "manual"), with its events;
        ``providers``: the main one and the summary model's (if set); ``lines`` is the budget
        with the trigger the schedule used (its anti-thrash floor); ``before``: the
        PreCompact hooks."""
        budget, view, estimate = sizing.budget, sizing.view, sizing.estimate
        guard = self.stages.guard
        keep = budget.keep_tokens
        if reason == "manual":
            keep = min(keep, int(self.policy.keep_recent_fraction * estimate))
        transcript_ids = {m.id for m in self.session.transcript}
        smallest = 1 if reason == "manual" else min_head_tokens(sizing.local)
        plan = self.compressor.plan(
            view, self.calibration.local_for(keep), transcript_ids, smallest
        )
        if plan is None:
            guard.nothing_to_do(estimate)
            log.info("compression: nothing to compress at ~%d tokens", estimate)
            if reason == "manual":
                yield Notice("info", "nothing to compress: the conversation is too short to split")
            return
        if before is not None:  # PreCompact hooks
            for event in await before(reason, focus):
                yield event
        yield Notice(
            "info",
            f"compressing the context (~{estimate:,} tokens, {budget.percent(estimate)}% of the "
            f"{budget.window:,}-token window)",
        )
        job = self._job(sizing, providers, plan.split, plan.head_tokens, reason, focus)
        job = replace(
            job,
            read_cache=sizing.warm,
            prepare=lambda request: self.cache.prepare(request, self.clock(), summary=True),
        )
        attempt: Attempt | None = None
        async for step in self.compressor.run(job, plan):
            if isinstance(step, Attempt):
                attempt = step
                for event in self._record_attempt(step, sizing, index):
                    yield event
            elif (notice := wait_notice(step)) is not None:
                yield notice
        assert attempt is not None  # run() always ends with its Attempt
        if attempt.edit is not None and (after := sizing.estimate_edit(attempt.edit)) >= estimate:
            attempt = replace(
                attempt,
                edit=None,
                status="inflated",
                detail=(
                    f"the summary would not make the context smaller (~{estimate:,} tokens "
                    f"before, ~{after:,} after)"
                ),
            )
        if attempt.edit is not None:
            self.session.add_edit(attempt.edit)
            guard.succeeded(sizing.estimate_with(None), lines or budget)
            self.stages.compressed()
            log.info(attempt.detail)
            yield ContextEdited(attempt.edit, attempt.detail)
            return
        log.warning("compression failed (%s): %s", attempt.status, attempt.detail)
        yield Notice("warning", f"compression failed: {attempt.detail}; the context is unchanged")
        if reason != "manual" and guard.failed(estimate):
            yield Notice(
                "warning",
                "auto-compression paused after 3 failed attempts in a row; /compact tries again",
            )

    def _record_attempt(self, attempt: Attempt, sizing: Sizing, index: int) -> list[Event]:
        """Note one summary request's usage (and say so when its answer is asked again)."""
        events: list[Event] = []
        if attempt.usage is not None:
            self.cache.answered(attempt.usage)
            self.session.record_response(
                self.clock(), attempt.usage, attempt.model, attempt.local_prompt
            )
            if attempt.usage.reported:
                self.calibration.observe(attempt.usage.prompt_tokens, attempt.local_prompt)
            events.append(
                RequestFinished(
                    attempt.usage,
                    index,
                    sizing.estimate_with(None),
                    sizing.budget.window,
                    "summary",
                    attempt.model,
                )
            )
        if attempt.retrying:
            log.info("compression: summary rejected (%s), asking once more", attempt.detail)
            events.append(Notice("info", f"{attempt.detail}; asking once more with a reminder"))
        return events

    def _job(
        self,
        sizing: Sizing,
        providers: tuple[Provider, Provider | None],
        split: int,
        head_tokens: int,
        reason: SummaryReason,
        focus: str | None,
    ) -> CompressionJob:
        """The summary request's setup: which provider, how big its prompt may be, what is
        pinned verbatim and which files are kept in most detail."""
        budget, view = sizing.budget, sizing.view
        base = replace(sizing.shape, messages=view)
        main, summary_model = providers
        provider, other, limit = main, False, budget.input_limit
        if summary_model is not None:
            window = context_window_for(summary_model.model)
            room = window - budget.summary_tokens
            needed = sizing.prefix + head_tokens
            if needed * (1 + SAFETY_MARGIN) * self.calibration.ratio <= room:
                provider, other, limit = summary_model, True, room
            else:
                log.info(
                    "compression: %s's window (%d) is too small for ~%d tokens; using %s",
                    summary_model.model,
                    window,
                    needed,
                    main.model,
                )
        return CompressionJob(
            view=view,
            base=base,
            provider=provider,
            input_limit=self.calibration.local_for(int(limit / (1 + SAFETY_MARGIN))),
            summary_tokens=budget.summary_tokens,
            estimate=sizing.estimate_with,
            reason=reason,
            focus=focus,
            other_model=other,
            pinned=pinned_for(self.session, view[split - 1].id, self.limit_result),
            important=worked_on(view),
        )
