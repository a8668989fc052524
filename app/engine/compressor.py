"""LLM summary compression: one attempt to replace the older part of the view by a summary.

The agent decides *when* (``compress_plan.decide``); this module plans the
split, runs the summary request and checks the answer. A summary that is
empty, failed or not smaller than what it replaces is rejected: the attempt
returns no edit and the view stays as it was. An accepted summary is a
:class:`~app.model.edits.Summary` context edit, so the transcript is never
touched and ``build_view`` applies it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Container, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from app.context.compress_plan import fit_head, plan_split
from app.context.compress_prompt import clean_summary, summary_instruction, summary_messages
from app.context.tokens import TokenCounter
from app.context.view import SUMMARY_PREFIX
from app.model.edits import Summary, SummaryReason
from app.model.messages import Message, Text, Thinking
from app.model.provider import (
    Completed,
    ModelRequest,
    Provider,
    ProviderError,
    Retrying,
    ThinkingConfig,
    Usage,
)

log = logging.getLogger("lull.compress")

Status = Literal["ok", "empty", "inflated", "error"]


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


@dataclass(frozen=True)
class Attempt:
    """The outcome of one summary request; ``edit`` is set only when ``status`` is "ok"."""

    status: Status
    detail: str
    edit: Summary | None = None
    usage: Usage | None = None
    model: str = ""
    local_prompt: int = 0
    before: int = 0
    after: int = 0


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
        before retries as they start, then one :class:`Attempt`; never raises for a provider."""
        before = job.estimate(job.view)
        request = self._request(job, job.view[: plan.split])
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
        yield self._judge(job, plan, completed, answered)

    def _judge(
        self, job: CompressionJob, plan: SplitPlan, completed: Completed, answered: Attempt
    ) -> Attempt:
        """Accept the answer as a Summary edit, or say why it is rejected."""
        text = clean_summary("".join(p.text for p in completed.parts if isinstance(p, Text)))
        if not text:
            return answered
        summary_tokens = self.counter.text(SUMMARY_PREFIX + text)
        if summary_tokens >= plan.head_tokens:
            detail = (
                f"the summary (~{summary_tokens:,} tokens) is not smaller than the "
                f"~{plan.head_tokens:,} tokens it would replace"
            )
            return replace(answered, status="inflated", detail=detail)
        head, tail = job.view[: plan.split], job.view[plan.split :]
        head_message = Message("user", (Text(SUMMARY_PREFIX + text),), origin="summary")
        after = job.estimate([head_message, *tail])
        edit = Summary(
            through_id=head[-1].id,
            text=text,
            tokens_before=answered.before,
            tokens_after=after,
            reason=job.reason,
            at=self.clock(),
        )
        detail = (
            f"compressed context: summarised {len(head)} messages (~{plan.head_tokens:,} tokens) "
            f"into ~{summary_tokens:,}; kept the {len(tail)} most recent messages "
            f"(~{plan.tail_tokens:,} tokens) verbatim; context ~{answered.before:,} -> "
            f"~{after:,} tokens"
        )
        return replace(answered, status="ok", detail=detail, edit=edit, after=after)

    def _request(self, job: CompressionJob, head: Sequence[Message]) -> ModelRequest:
        """The summary request: the session's request with ``head`` and the instruction."""
        base = job.base
        if job.other_model:
            head = [_without_thinking(m) for m in head]
            base = replace(base, thinking=ThinkingConfig(False))
        instruction = summary_instruction(job.summary_tokens, job.focus)
        fixed = self.counter.prefix(base.system, base.environment, base.tools)
        room = job.input_limit - fixed - self.counter.text(instruction)
        fitted = fit_head(head, self.counter.message, max(room, 1))
        if len(fitted) != len(head) or any(a is not b for a, b in zip(fitted, head, strict=False)):
            log.info("compression: summary input shrunk to fit (%d tokens of room)", room)
        max_output = max(1, min(base.max_output_tokens, job.summary_tokens))
        messages = summary_messages(fitted, instruction)
        return replace(base, messages=messages, max_output_tokens=max_output)


def _without_thinking(message: Message) -> Message:
    """``message`` without thinking parts (another model cannot verify them)."""
    if not any(isinstance(p, Thinking) for p in message.parts):
        return message
    return message.replace_parts(tuple(p for p in message.parts if not isinstance(p, Thinking)))
