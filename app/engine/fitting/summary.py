"""LLM summary compression: replace the older part of the view by a checked summary.

The fitter decides *when* (``context/stages.py``); this module plans the split, runs the
summary request and checks the answer. A summary that is empty, lacks any of the
:data:`~lull.context.compress_prompt.SECTIONS`, or is not smaller than what it replaces is
rejected and asked for once more with a reminder saying why; a second rejection (or a failed
request) leaves the view as it was. The critical content of the replaced part (what the
user typed, unresolved errors, notes) is pinned verbatim after the summary
(``context/pinning.py``); a compression that could not keep it and still gain is refused.
An accepted summary is a :class:`~lull.model.edits.Summary` context edit (an archive
checkpoint: ``/context restore`` undoes it), so the transcript is never touched.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Container, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from lull.context.compress_plan import fit_head, plan_split
from lull.context.compress_prompt import (
    clean_summary,
    missing_sections,
    summary_instruction,
    summary_messages,
)
from lull.context.tokens import TokenCounter
from lull.context.view import summary_text
from lull.model.edits import Summary, SummaryReason
from lull.model.messages import Message, Text, Thinking
from lull.model.provider import (
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    Retrying,
    ThinkingConfig,
    Usage,
)

log = logging.getLogger("lull.compress")

Status = Literal["ok", "empty", "incomplete", "inflated", "refused", "error"]
RETRYABLE: frozenset[Status] = frozenset({"empty", "incomplete", "inflated"})
"""Rejections worth asking once more for, with a reminder saying why."""


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """Where to split a view: ``view[:split]`` is summarised, the rest kept verbatim."""

    split: int
    head_tokens: int
    tail_tokens: int


@dataclass(frozen=True)
class CompressionJob:
    """Everything one summary request needs.

    ``base`` is the session's request (system prompt, tools, thinking) the
    summary request is derived from; ``input_limit`` is the largest prompt the
    summary request may have. Token figures are local counts, except what
    ``estimate`` returns (the calibrated whole-prompt size of a message list).

    ``read_cache`` says the conversation is warm in the provider's cache: the summary
    request then sends the whole view (read from the cache at a tenth of the price, only
    the instruction is new) rather than the older part alone, whose prefix the cache
    holds no entry for. On a cold cache it sends the older part without cache markers
    (writing an entry nobody reads again would cost 1.25x instead of 1x). ``prepare`` is
    applied to every summary request before it is sent (the cache clock records it).
    """

    view: Sequence[Message]
    base: ModelRequest
    provider: Provider
    input_limit: int
    summary_tokens: int
    estimate: Callable[[Sequence[Message]], int]
    reason: SummaryReason = "auto"
    focus: str | None = None
    other_model: bool = False
    pinned: str = ""
    important: tuple[str, ...] = ()
    read_cache: bool = False
    prepare: Callable[[ModelRequest], ModelRequest] = lambda request: request


@dataclass(frozen=True)
class Attempt:
    """The outcome of one summary request; ``edit`` is set only when ``status`` is "ok".

    ``retrying`` marks a rejected answer that is asked for once more (another Attempt
    follows)."""

    status: Status
    detail: str
    edit: Summary | None = None
    usage: Usage | None = None
    model: str = ""
    local_prompt: int = 0
    before: int = 0
    after: int = 0
    retrying: bool = False


UNSTRUCTURED_NOTE = (
    "(An unstructured summary: the model wrote it without the usual sections, so details "
    "may be missing.)"
)
"""The line above a summary kept without its sections."""
MIN_UNSTRUCTURED_WORDS = 25
"""How many words a summary without the sections needs to be kept at all (a model that
answers "done" to the summary request has not summarised anything)."""


class Compressor:
    """Plans splits and runs summary requests with one token counter and clock."""

    def __init__(self, counter: TokenCounter, clock: Callable[[], float]) -> None:
        self.counter = counter
        self.clock = clock

    def plan(
        self,
        view: Sequence[Message],
        keep_tokens: int,
        transcript_ids: Container[str],
        min_head_tokens: int = 1,
    ) -> SplitPlan | None:
        """Where to split ``view`` keeping about ``keep_tokens`` verbatim, or None."""
        sizes = [self.counter.message(m) for m in view]
        split = plan_split(
            view,
            sizes,
            keep_tokens,
            transcript_ids=transcript_ids,
            min_head_tokens=min_head_tokens,
        )
        if split is None:
            return None
        return SplitPlan(split, sum(sizes[:split]), sum(sizes[split:]))

    async def run(self, job: CompressionJob, plan: SplitPlan) -> AsyncIterator[Retrying | Attempt]:
        """Summarise ``view[:plan.split]`` and check the answer: yields the provider's waits
        before retries as they start, and an :class:`Attempt` per summary request (a
        rejected answer is asked for once more; the last Attempt is the outcome); never
        raises for a provider."""
        before = job.estimate(job.view)
        pinned_tokens = self.counter.text(job.pinned) if job.pinned else 0
        if pinned_tokens >= plan.head_tokens:
            detail = (
                f"the content that must stay verbatim (what the user wrote, unresolved errors, "
                f"notes: ~{pinned_tokens:,} tokens) is not smaller than the ~"
                f"{plan.head_tokens:,} tokens it would replace"
            )
            yield Attempt("refused", detail, before=before)
            return
        reminder: str | None = None
        for attempt_number in (1, 2):
            attempt: Attempt | None = None
            async for step in self._ask(job, plan, before, reminder, last=attempt_number == 2):
                if isinstance(step, Attempt):
                    attempt = step
                else:
                    yield step
            assert attempt is not None
            if attempt.status in RETRYABLE and attempt_number == 1:
                reminder = attempt.detail
                yield replace(attempt, retrying=True)
                continue
            yield attempt
            return

    async def _ask(
        self,
        job: CompressionJob,
        plan: SplitPlan,
        before: int,
        reminder: str | None,
        *,
        last: bool = False,
    ) -> AsyncIterator[Retrying | Attempt]:
        """One summary request and its verdict (``last``: no other request follows)."""
        request = job.prepare(self._request(job, job.view[: plan.split], reminder))
        local = self.counter.prefix(request.system, request.environment, request.tools)
        local += self.counter.messages(request.messages)
        completed: Completed | None = None
        try:
            async for event in job.provider.stream(request):
                if isinstance(event, Retrying):
                    yield event
                elif isinstance(event, Completed):
                    completed = event
            if completed is None:
                raise ProviderError("stream_cut", "the summary response ended without completing")
        except ProviderError as error:
            log.warning("compression: summary request failed: %s", error.message)
            yield Attempt("error", f"the summary request failed: {error.message}", before=before)
            return
        answered = Attempt(
            "empty",
            "the model returned an empty summary",
            usage=completed.usage,
            model=completed.model or job.provider.model,
            local_prompt=local,
            before=before,
        )
        yield self._judge(job, plan, completed, answered, last=last)

    def _judge(
        self,
        job: CompressionJob,
        plan: SplitPlan,
        completed: Completed,
        answered: Attempt,
        *,
        last: bool = False,
    ) -> Attempt:
        """Accept the answer as a Summary edit, or say why it is rejected. On the ``last``
        try a summary without the sections (a small model's prose of at least
        :data:`MIN_UNSTRUCTURED_WORDS` words) is kept as an unstructured summary, marked as
        such, when it frees room: something that frees the window is better than nothing."""
        text = clean_summary("".join(p.text for p in completed.parts if isinstance(p, Text)))
        if not text:
            return answered
        missing = missing_sections(text)
        unstructured = ""
        if missing and (not last or len(text.split()) < MIN_UNSTRUCTURED_WORDS):
            detail = f"the summary lacks the section(s) {', '.join(missing)}"
            return replace(answered, status="incomplete", detail=detail)
        if missing:
            text = f"{UNSTRUCTURED_NOTE}\n\n{text}"
            unstructured = " (an unstructured summary: the model did not write the sections)"
        head, tail = job.view[: plan.split], job.view[plan.split :]
        edit = Summary(
            through_id=head[-1].id,
            text=text,
            tokens_before=answered.before,
            reason=job.reason,
            at=self.clock(),
            pinned=job.pinned,
            replaced=len(head),
            head_tokens=plan.head_tokens,
        )
        # Judged as the view will hold it: a message with the recall line and the pins.
        head_message = Message("user", (Text(summary_text(edit)),), origin="summary")
        summary_tokens = self.counter.message(head_message)
        if summary_tokens >= plan.head_tokens:
            detail = (
                f"the summary (~{summary_tokens:,} tokens with what stays verbatim) is not "
                f"smaller than the ~{plan.head_tokens:,} tokens it would replace"
            )
            return replace(answered, status="inflated", detail=detail)
        after = job.estimate([head_message, *tail])
        edit = replace(edit, tokens_after=after)
        detail = (
            f"compressed context: summarised {len(head)} messages (~{plan.head_tokens:,} tokens) "
            f"into ~{summary_tokens:,}{unstructured}; kept the {len(tail)} most recent messages "
            f"(~{plan.tail_tokens:,} tokens) verbatim; context ~{answered.before:,} -> "
            f"~{after:,} tokens"
        )
        return replace(answered, status="ok", detail=detail, edit=edit, after=after)

    def _request(
        self, job: CompressionJob, head: Sequence[Message], reminder: str | None = None
    ) -> ModelRequest:
        """The summary request: the session's request with ``head`` (the whole view when it
        is cached and fits: ``read_cache``) and the instruction (with ``reminder``, why the
        previous answer was rejected, on the one retry)."""
        base = job.base
        if job.other_model:
            head = [_without_thinking(m) for m in head]
            base = replace(base, thinking=ThinkingConfig(False))
        instruction = summary_instruction(
            job.summary_tokens, job.focus, important=job.important, reminder=reminder
        )
        fixed = self.counter.prefix(base.system, base.environment, base.tools)
        room = job.input_limit - fixed - self.counter.text(instruction)
        max_output = max(1, min(base.max_output_tokens, job.summary_tokens))
        if job.read_cache and not job.other_model:
            whole = list(job.view)
            if sum(self.counter.message(m) for m in whole) <= room:
                messages = summary_messages(whole, instruction)
                return replace(base, messages=messages, max_output_tokens=max_output)
        elif not job.other_model:
            base = replace(base, prompt_caching=False)
        fitted = fit_head(head, self.counter.message, max(room, 1))
        if len(fitted) != len(head) or any(a is not b for a, b in zip(fitted, head, strict=False)):
            log.info("compression: summary input shrunk to fit (%d tokens of room)", room)
        messages = summary_messages(fitted, instruction)
        return replace(base, messages=messages, max_output_tokens=max_output)


def _without_thinking(message: Message) -> Message:
    """``message`` without thinking parts (another model cannot verify them)."""
    if not any(isinstance(p, Thinking) for p in message.parts):
        return message
    return message.replace_parts(tuple(p for p in message.parts if not isinstance(p, Thinking)))
