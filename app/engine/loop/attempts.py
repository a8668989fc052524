"""Fresh attempts for ``-p``: a failure summary, then the task again in a new session.

When an attempt ends without a final answer (``maxTurns``, the window exhausted after
compression, the rollback budget, a doom loop, repeated tool failures, a repeating answer),
the model is asked, with tools switched off, for a failure summary in a fixed structure
(failure type, what happened, useful findings). The summary never goes back into the failed
session: the next attempt starts a fresh session with the original prompt followed by a
"previous attempts" block, and the last attempt is told to give its best answer now.

The answer pool keeps the last complete, non-empty answer text of every attempt, so the
caller can fall back to it when the final attempt still has no answer.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace

from lull.engine.loop.agent import Agent
from lull.engine.waits import wait_notice
from lull.model.events import (
    AttemptFinished,
    AttemptOutcome,
    AttemptStarted,
    Event,
    FailureType,
    GuardrailTriggered,
    Notice,
    RequestFinished,
    TurnFailed,
    TurnFinished,
)
from lull.model.messages import Image, Message, Text
from lull.model.provider import Completed, ProviderError, Retrying

log = logging.getLogger("lull.guardrails")

RETRYABLE: frozenset[AttemptOutcome] = frozenset(
    {"max_turns", "window", "rollbacks", "doom_loop", "tool_failures", "repetition"}
)
"""Outcomes that are no final answer and worth a fresh attempt (a failed request or an
answer cut at the output limit are not)."""
DEFAULT_TYPES: dict[AttemptOutcome, FailureType] = {
    "max_turns": "incomplete",
    "window": "incomplete",
    "rollbacks": "format_missed",
    "doom_loop": "blocked",
    "tool_failures": "blocked",
    "repetition": "format_missed",
}
FAILURE_TYPES: tuple[FailureType, ...] = ("incomplete", "blocked", "misdirected", "format_missed")
SUMMARY_PROMPT = """\
The task was not completed: {reason}. Do NOT call any tools and do not go on with the task. \
Write a short failure report for a fresh attempt that will start over with an empty context, \
in exactly this form:

Failure type: one of incomplete (ran out of steps before finishing), blocked (tool failures \
or missing information stopped progress), misdirected (went down a wrong path), format_missed \
(had the answer but did not deliver it as a final answer)
What happened: two to four sentences on the approach and where it got stuck.
Useful findings: the facts, file paths, commands and results a fresh attempt should reuse, \
and what it should avoid."""
PREVIOUS_HEADER = "=== Previous attempts ==="
PREVIOUS_FOOTER = "=== End of previous attempts ==="
LAST_ATTEMPT = (
    "This is the last attempt: give your best answer now, even if it is incomplete, rather "
    "than running out of steps."
)
_TYPE = re.compile(r"failure type\W*(" + "|".join(FAILURE_TYPES) + r")", re.I)
_HAPPENED = re.compile(r"what happened\W*:\W*(.*?)(?=\n\W*useful findings|\Z)", re.I | re.S)
_FINDINGS = re.compile(r"useful findings\W*:\W*(.*)", re.I | re.S)


class AttemptUnavailable(Exception):
    """A fresh attempt cannot start (no new session could be made); one line why."""


AgentSource = Callable[[], Agent]
"""Gives the agent of the next attempt, on a fresh session (raises AttemptUnavailable)."""


@dataclass(frozen=True, slots=True)
class FailureSummary:
    """What a failed attempt left for the next one."""

    failure_type: FailureType
    what_happened: str
    findings: str

    def text(self) -> str:
        """The summary in its fixed structure."""
        return (
            f"Failure type: {self.failure_type}\nWhat happened: {self.what_happened}\n"
            f"Useful findings: {self.findings}"
        )


class OutcomeWatch:
    """Follows one attempt's events and tells how it ended, with one line why."""

    def __init__(self) -> None:
        self.outcome: AttemptOutcome = "failed"
        self.reason = "the turn ended without an answer"

    def take(self, event: Event) -> None:
        """Look at one event of the attempt."""
        if isinstance(event, TurnFailed):
            self.outcome = "window" if event.kind == "prompt_too_long" else "failed"
            self.reason = event.message
        elif isinstance(event, TurnFinished):
            self.outcome, self.reason = _finished_outcome(event)


def _finished_outcome(event: TurnFinished) -> tuple[AttemptOutcome, str]:
    match event.stop_reason:
        case "end_turn" | "tool_use" | "refusal" | "other":
            if event.text.strip():
                return "answered", "answered"
            return "empty", "the model answered nothing"
        case "max_tokens":
            return "cut", "the answer was cut at the output token limit"
        case "max_turns":
            return "max_turns", "the model had not finished at maxTurns"
        case "rollbacks" | "doom_loop" | "tool_failures" | "repetition" as stop:
            return stop, event.detail or stop


def parse_summary(text: str, fallback: FailureType) -> FailureSummary:
    """The failure summary a model wrote (``fallback`` type when it names none)."""
    kind = _TYPE.search(text)
    happened = _HAPPENED.search(text)
    findings = _FINDINGS.search(text)
    failure_type: FailureType = fallback
    if kind is not None:
        named = kind.group(1).lower()
        failure_type = next(t for t in FAILURE_TYPES if t == named)
    return FailureSummary(
        failure_type,
        " ".join((happened.group(1) if happened else text).split())[:1500] or "(not said)",
        " ".join(findings.group(1).split())[:1500] if findings else "(none given)",
    )


def retry_prompt(
    prompt: str, summaries: Sequence[tuple[int, FailureSummary]], *, last: bool
) -> str:
    """The prompt of a fresh attempt: the original, then what earlier attempts found."""
    blocks = [
        f"[Attempt {number}: {summary.failure_type}]\nWhat happened: {summary.what_happened}\n"
        f"Useful findings: {summary.findings}"
        for number, summary in summaries
    ]
    closing = (
        "Those attempts did not finish. Reuse what they found, avoid what failed, and try a "
        "different strategy where they got stuck."
    )
    parts = [prompt, PREVIOUS_HEADER, *blocks, PREVIOUS_FOOTER, closing]
    if last:
        parts.append(LAST_ATTEMPT)
    return "\n\n".join(parts)


def pool_answer(messages: Sequence[Message]) -> str:
    """The answer pool's entry for an attempt: the text of its last kept reply that said
    anything (rolled-back and discarded replies are never in the transcript)."""
    for message in reversed(messages):
        if message.role == "assistant" and message.text.strip():
            return message.text
    return ""


async def failure_summary(
    agent: Agent, watch: OutcomeWatch
) -> AsyncIterator[Event | FailureSummary]:
    """Ask the failed attempt's model for its failure summary (tools off); the request and
    its answer are never added to the session. A failed request gives a summary made of
    what is known. Yields the request's events, then the :class:`FailureSummary`."""
    fallback = DEFAULT_TYPES.get(watch.outcome, "incomplete")
    prompt = SUMMARY_PROMPT.format(reason=watch.reason.rstrip("."))
    request = agent.fitter.sending(agent.shape())
    ask = Message("user", (Text(prompt),), origin="synthetic")
    request = replace(request, messages=[*request.messages, ask], tool_choice="none")
    completed: Completed | None = None
    try:
        async for event in agent.provider.stream(request):
            if isinstance(event, Retrying) and (notice := wait_notice(event)) is not None:
                yield notice
            elif isinstance(event, Completed):
                completed = event
    except ProviderError as error:
        log.warning("failure summary request failed: %s", error.message)
        yield Notice("warning", f"the failure summary request failed: {error.message}")
    if completed is None:
        yield FailureSummary(fallback, watch.reason, "(no summary: the request failed)")
        return
    model = completed.model or agent.provider.model
    agent.session.record_response(agent.clock(), completed.usage, model, agent.fitter.sent_local)
    yield RequestFinished(
        completed.usage, 0, agent.estimate_context(), agent.context_window, "failure_summary", model
    )
    text = "".join(p.text for p in completed.parts if isinstance(p, Text))
    yield parse_summary(text, fallback)


async def run_attempts(
    first: Agent,
    fresh: AgentSource,
    prompt: str,
    max_attempts: int,
    images: Sequence[Image] = (),
) -> AsyncIterator[Event]:
    """Run ``prompt`` (with ``images``) as up to ``max_attempts`` attempts (see the module
    docstring)."""
    agent = first
    summaries: list[tuple[int, FailureSummary]] = []
    for number in range(1, max_attempts + 1):
        if number > 1:
            try:
                agent = fresh()
            except AttemptUnavailable as error:
                yield Notice("error", f"cannot start attempt {number}: {error}")
                return
        last = number == max_attempts
        text = prompt if number == 1 else retry_prompt(prompt, summaries, last=last)
        yield AttemptStarted(number, max_attempts, agent.session.id)
        start = len(agent.session.transcript)
        watch = OutcomeWatch()
        async for event in agent.run_turn(text, images):
            watch.take(event)
            yield event
        answer = pool_answer(agent.session.transcript[start:])
        session_id = agent.session.id
        if watch.outcome not in RETRYABLE or last:
            failure = DEFAULT_TYPES.get(watch.outcome)
            yield AttemptFinished(number, session_id, watch.outcome, failure, "", answer)
            return
        summary: FailureSummary | None = None
        async for item in failure_summary(agent, watch):
            if isinstance(item, FailureSummary):
                summary = item
            else:
                yield item
        assert summary is not None  # failure_summary always ends with one
        summaries.append((number, summary))
        line = (
            f"attempt {number} of {max_attempts} ended without an answer ({watch.reason}); "
            f"{summary.failure_type}: starting attempt {number + 1} in a fresh session"
        )
        log.warning("%s", line)
        yield GuardrailTriggered("attempt", line, summary.failure_type)
        yield AttemptFinished(
            number, session_id, watch.outcome, summary.failure_type, summary.text(), answer
        )
