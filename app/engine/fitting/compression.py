"""Compression for a :class:`~lull.engine.fitting.fitter.ContextFitter`: plan the split, run the
PreCompact hooks, ask for the summary (with the cache read when it is warm, another model
when one is set and its window fits), record the edit or say why it failed."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

from lull.catalog.windows import context_window_for
from lull.context.compress_plan import SAFETY_MARGIN, Budget, min_head_tokens
from lull.engine.fitting.steps import pinned_for, worked_on
from lull.engine.fitting.summary import Attempt, CompressionJob
from lull.engine.waits import wait_notice
from lull.model.edits import SummaryReason
from lull.model.events import ContextEdited, Event, Notice, RequestFinished
from lull.model.messages import Message
from lull.model.provider import ModelRequest

if TYPE_CHECKING:
    from lull.engine.fitting.fitter import ContextFitter

log = logging.getLogger("lull.compress")


class SummarySteps:
    """The summary compression of one fitter's session."""

    def __init__(self, fitter: ContextFitter) -> None:
        self.fitter = fitter

    async def compress(
        self,
        shape: ModelRequest,
        index: int,
        reason: SummaryReason,
        focus: str | None,
        lines: Budget | None = None,
    ) -> AsyncIterator[Event]:
        """One compression attempt (reason "auto", "overflow" or "manual"), with its events;
        ``lines`` is the budget with the trigger the schedule used (its anti-thrash floor)."""
        fit = self.fitter
        fit.count_exactly(shape)
        budget = fit.budget(shape)
        view = fit.model_view()
        estimate = fit.estimate(shape, view)
        keep = budget.keep_tokens
        if reason == "manual":
            keep = min(keep, int(fit.settings.compression.keep_recent_fraction * estimate))
        transcript_ids = {m.id for m in fit.session.transcript}
        smallest = 1 if reason == "manual" else min_head_tokens(fit.local_tokens(shape, view))
        plan = fit.compressor.plan(view, fit.calibration.local_for(keep), transcript_ids, smallest)
        if plan is None:
            fit.guard.nothing_to_do(estimate)
            log.info("compression: nothing to compress at ~%d tokens", estimate)
            if reason == "manual":
                yield Notice("info", "nothing to compress: the conversation is too short to split")
            return
        if fit.before_compress is not None:  # PreCompact hooks
            for event in await fit.before_compress(reason, focus):
                yield event
        yield Notice(
            "info",
            f"compressing the context (~{estimate:,} tokens, {budget.percent(estimate)}% of the "
            f"{budget.window:,}-token window)",
        )
        job = self._job(shape, view, plan.split, plan.head_tokens, reason, focus)
        cache = fit.warmth(shape)
        job = replace(
            job,
            read_cache=cache is not None and cache.conversation_warm,
            prepare=lambda request: fit.cache.prepare(request, fit.clock(), summary=True),
        )
        attempt: Attempt | None = None
        async for step in fit.compressor.run(job, plan):
            if isinstance(step, Attempt):
                attempt = step
                for event in self._record_attempt(step, shape, index, budget):
                    yield event
            elif (notice := wait_notice(step)) is not None:
                yield notice
        assert attempt is not None  # run() always ends with its Attempt
        if attempt.edit is not None:
            fit.session.add_edit(attempt.edit)
            fit.guard.succeeded(fit.estimate(shape), lines or budget)
            fit.stages.compressed()
            log.info(attempt.detail)
            yield ContextEdited(attempt.edit, attempt.detail)
            return
        log.warning("compression failed (%s): %s", attempt.status, attempt.detail)
        yield Notice("warning", f"compression failed: {attempt.detail}; the context is unchanged")
        if reason != "manual" and fit.guard.failed(estimate):
            yield Notice(
                "warning",
                "auto-compression paused after 3 failed attempts in a row; /compact tries again",
            )

    def _record_attempt(
        self, attempt: Attempt, shape: ModelRequest, index: int, budget: Budget
    ) -> list[Event]:
        """Note one summary request's usage (and say so when its answer is asked again)."""
        fit = self.fitter
        events: list[Event] = []
        if attempt.usage is not None:
            fit.cache.answered(attempt.usage)
            fit.session.record_response(
                fit.clock(), attempt.usage, attempt.model, attempt.local_prompt
            )
            if attempt.usage.reported:
                fit.calibration.observe(attempt.usage.prompt_tokens, attempt.local_prompt)
            events.append(
                RequestFinished(
                    attempt.usage,
                    index,
                    fit.estimate(shape),
                    budget.window,
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
        shape: ModelRequest,
        view: list[Message],
        split: int,
        head_tokens: int,
        reason: SummaryReason,
        focus: str | None,
    ) -> CompressionJob:
        """The summary request's setup: which provider, how big its prompt may be, what is
        pinned verbatim and which files are kept in most detail."""
        fit = self.fitter
        budget = fit.budget(shape)
        base = replace(shape, messages=view)
        provider, other, limit = fit.provider, False, budget.input_limit
        if fit.summary_provider is not None:
            window = context_window_for(fit.summary_provider.model)
            room = window - budget.summary_tokens
            needed = fit.counter.prefix(base.system, base.environment, base.tools) + head_tokens
            if needed * (1 + SAFETY_MARGIN) * fit.calibration.ratio <= room:
                provider, other, limit = fit.summary_provider, True, room
            else:
                log.info(
                    "compression: %s's window (%d) is too small for ~%d tokens; using %s",
                    fit.summary_provider.model,
                    window,
                    needed,
                    fit.provider.model,
                )
        return CompressionJob(
            view=view,
            base=base,
            provider=provider,
            input_limit=fit.calibration.local_for(int(limit / (1 + SAFETY_MARGIN))),
            summary_tokens=budget.summary_tokens,
            estimate=lambda messages: fit.estimate(shape, messages),
            reason=reason,
            focus=focus,
            other_model=other,
            pinned=pinned_for(fit.session, view[split - 1].id, fit.limiter.limit_result),
            important=worked_on(view),
        )
