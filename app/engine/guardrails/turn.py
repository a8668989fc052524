"""The guardrails of one user turn: what to do with each finished (or cut-off) reply.

The turn loop (:mod:`lull.engine.loop.agent`) streams a request and hands the outcome to
:meth:`TurnGuard.decide`, which says one of

- :class:`Accept`: keep the reply (it goes into the transcript and counts as a step);
- :class:`Retry`: ask again with a :class:`RequestPlan` (a corrective note, a partial answer
  to continue, a larger output limit); a rolled-back reply comes with it, to be saved marked;
- :class:`Stop`: end the turn (rollbacks in a row or the request budget used up, a second
  repeating answer), with one line saying why.

Counters follow the reference harness: rollbacks do not count against ``maxTurns``, at most
``max_consecutive_rollbacks`` in a row, and ``maxTurns + extra_requests`` requests in all.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, field, replace

from lull.engine.guardrails.calls import CallLedger
from lull.engine.guardrails.classify import Rollback, judge_reply, snippet
from lull.engine.guardrails.continuation import (
    ContinuationMode,
    HeldAnswer,
    continuation_mode,
    cut_kind,
    larger_limit,
)
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.engine.guardrails.repetition import Repetition, RepetitionDetector
from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    Event,
    GuardrailTriggered,
    GuardStop,
    RequestFinished,
    TurnFinished,
)
from lull.model.messages import Message, Text, Thinking
from lull.model.provider import Completed, ModelRequest, Vendor
from lull.model.rollbacks import REASON_WORDS, RolledBack

log = logging.getLogger("lull.guardrails")

REPETITION_NOTE = (
    "Your previous reply got stuck repeating the same text and was cut off and discarded. "
    "Answer again, briefly, without repeating yourself."
)


@dataclass(frozen=True, slots=True)
class RequestPlan:
    """How the next request differs from a plain one: a one-line corrective ``note`` after
    the last message (never stored), a partial answer to continue (``prefill``), another
    ``output_limit``, or the context compressed first (``compress``: the window left too
    little room for output)."""

    note: str | None = None
    prefill: Message | None = None
    output_limit: int | None = None
    compress: bool = False


@dataclass(frozen=True, slots=True)
class Answered:
    """A request that finished: the reply and the answer text streamed for it; ``sent_limit``
    the output limit it was sent with and ``room`` the most output the context window left
    it (None: not known)."""

    reply: Completed
    streamed: str
    sent_limit: int | None = None
    room: int | None = None

    @property
    def window_bound(self) -> bool:
        """Whether the output limit was all the window left: a larger one cannot be sent."""
        return (
            self.room is not None and self.sent_limit is not None and self.sent_limit >= self.room
        )


@dataclass(frozen=True, slots=True)
class Repeated:
    """A stream cut off because it kept repeating itself: what it had streamed."""

    text: str
    thinking: str
    repetition: Repetition


@dataclass(frozen=True, slots=True)
class PrefillRefused:
    """The server refused a request ending with a partial answer (a model without prefill)."""

    message: str


Outcome = Answered | Repeated | PrefillRefused


@dataclass(frozen=True, slots=True)
class Accept:
    """Keep ``reply`` (joined with the parts it continues, if any); ``events`` tell the front
    ends what was noticed about it (an answer cut by the window, kept as it is)."""

    reply: Completed
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Retry:
    """Ask again following ``plan``; ``events`` tell the front ends; ``rolled_back`` is the
    reply to save as rolled back (None when nothing is thrown away for good)."""

    plan: RequestPlan
    events: tuple[Event, ...]
    rolled_back: RolledBack | None = None

    def in_order(self, finished: RequestFinished | None) -> list[Event]:
        """The events to yield: what was discarded first (so no front end keeps its text),
        then the request's RequestFinished, then the notices."""
        return _in_order(self.events, finished)


@dataclass(frozen=True, slots=True)
class Stop:
    """End the turn: ``stop`` says which limit, ``detail`` one line why."""

    stop: GuardStop
    detail: str
    events: tuple[Event, ...] = ()
    rolled_back: RolledBack | None = None

    def in_order(self, finished: RequestFinished | None) -> list[Event]:
        """Like :meth:`Retry.in_order`, ending with the TurnFinished that ends the turn."""
        log.warning("%s", self.detail)
        return [*_in_order(self.events, finished), TurnFinished("", self.stop, self.detail)]


def _in_order(events: tuple[Event, ...], finished: RequestFinished | None) -> list[Event]:
    discards = [e for e in events if isinstance(e, AttemptDiscarded)]
    notices = [e for e in events if not isinstance(e, AttemptDiscarded)]
    for notice in notices:
        log.info("%s", getattr(notice, "text", notice))
    return [*discards, *([finished] if finished is not None else []), *notices]


Decision = Accept | Retry | Stop


@dataclass
class ServerFacts:
    """What the engine learned about the server while running (kept across turns)."""

    prefill_refused: bool = False


@dataclass(frozen=True)
class TurnSetup:
    """What a turn's guard needs to know about the session's requests."""

    policy: GuardrailPolicy
    max_turns: int
    max_output_tokens: int
    vendor: Vendor
    model: str
    provider: str
    thinking: bool
    offered: Collection[str]
    facts: ServerFacts = field(default_factory=ServerFacts)


class TurnGuard:
    """Counters and decisions for one user turn (see the module docstring)."""

    def __init__(self, setup: TurnSetup, ledger: CallLedger) -> None:
        self.setup = setup
        self.policy = setup.policy
        self.calls = ledger
        self.requests = 0
        self.rollbacks_in_row = 0
        self.continuations = 0
        self.repetitions = 0
        self.held: HeldAnswer | None = None

    # --- budget ---------------------------------------------------------------------------

    def spend_request(self) -> str | None:
        """Count the next request; one line why to stop when the turn's budget is spent."""
        budget = self.policy.request_budget(self.setup.max_turns)
        if self.policy.rollback and self.requests >= budget:
            return (
                f"stopped after {self.requests} model requests in one turn (maxTurns "
                f"{self.setup.max_turns} + {self.policy.extra_requests} for rolled-back "
                "replies, retries and continuations); send a message to go on"
            )
        self.requests += 1
        return None

    def watch(self) -> StreamWatch | None:
        """A repetition watch for the next stream (None when that guard is off)."""
        return StreamWatch() if self.policy.stream_repetition else None

    # --- decisions ------------------------------------------------------------------------

    def decide(self, outcome: Outcome, now: float) -> Decision:
        """What to do with a request's outcome (see the module docstring)."""
        match outcome:
            case Repeated():
                return self._repeated(outcome, now)
            case PrefillRefused(message):
                return self._prefill_refused(message)
            case Answered(reply, streamed):
                reply = self.held.joined(reply) if self.held is not None else reply
                if self.policy.continuation and reply.stop_reason == "max_tokens":
                    retry = self._continue(reply, streamed, outcome)
                    if retry is not None:
                        return retry
                rollback = (
                    judge_reply(reply.parts, reply.stop_reason, self.setup.offered)
                    if self.policy.rollback
                    else None
                )
                if rollback is None:
                    self._accepted()
                    return Accept(reply)
                return self._roll_back(reply, streamed, rollback, now)

    def _accepted(self) -> None:
        self.rollbacks_in_row = self.continuations = self.repetitions = 0
        self.held = None

    def _roll_back(
        self, reply: Completed, streamed: str, rollback: Rollback, now: float
    ) -> Decision:
        message = Message("assistant", reply.parts, origin="model", provider=self.setup.provider)
        rolled = RolledBack(message, rollback.reason, rollback.detail, now)
        self.held = None
        discarded = _discarded(streamed, reply, f"rolled back: {REASON_WORDS[rollback.reason]}")
        self.rollbacks_in_row += 1
        limit = self.policy.max_consecutive_rollbacks
        log.warning(
            "rolled back a reply (%d in a row): %s", self.rollbacks_in_row, rolled.describe()
        )
        if self.rollbacks_in_row > limit:
            detail = (
                f"stopped: the model's reply was rolled back {limit} times in a row and the next "
                f"one was {rolled.describe()}; send a message to go on"
            )
            return Stop("rollbacks", detail, discarded, rolled)
        line = (
            f"rolled back the model's reply ({rolled.describe()}); asking again "
            f"({self.rollbacks_in_row} of {limit} in a row)"
        )
        event = GuardrailTriggered("rollback", line, rollback.reason)
        return Retry(RequestPlan(note=rollback.note), (*discarded, event), rolled)

    def _repeated(self, outcome: Repeated, now: float) -> Decision:
        unit = snippet(outcome.repetition.unit)
        detail = f"{unit} repeated {outcome.repetition.repeats} times"
        parts = tuple(
            part for part in (Thinking(outcome.thinking), Text(outcome.text)) if part.text
        )
        message = Message("assistant", parts, origin="model", provider=self.setup.provider)
        rolled = RolledBack(message, "repetition", detail, now)
        self.held = None
        discarded = (AttemptDiscarded(outcome.text, "cut off: the answer kept repeating itself"),)
        self.repetitions += 1
        self.rollbacks_in_row += 1
        log.warning("cut off a repeating answer: %s", detail)
        if self.repetitions > 1 or self.rollbacks_in_row > self.policy.max_consecutive_rollbacks:
            line = (
                f"stopped: the model's answer kept repeating itself ({detail}) and was cut off "
                "again after a retry; send a message to go on"
            )
            return Stop("repetition", line, discarded, rolled)
        line = f"cut off the model's answer: it kept repeating itself ({detail}); asking again"
        event = GuardrailTriggered("repetition", line, "repetition")
        return Retry(RequestPlan(note=REPETITION_NOTE), (*discarded, event), rolled)

    def _continue(self, reply: Completed, streamed: str, outcome: Answered) -> Decision | None:
        """The retry that continues a reply cut at the output limit, or None to keep it; a
        reply cut by what the window leaves is kept (text) or stops the turn (see
        :meth:`_cut_by_window`): asking again cannot get a larger limit through."""
        kind = cut_kind(reply.parts)
        if kind == "complete" or self.continuations >= self.policy.max_continuations:
            return None
        if outcome.window_bound:
            return self._cut_by_window(reply, streamed, kind, outcome)
        self.continuations += 1
        number = f"{self.continuations} of {self.policy.max_continuations}"
        mode = self._mode() if kind == "text" else "larger_limit"
        if mode == "larger_limit":
            return self._larger_limit(reply, streamed, kind, number, outcome.room)
        if self.held is None:
            self.held = HeldAnswer.start(reply)
        else:
            self.held.hold(reply)
        line = f"the answer reached the output limit; continuing it ({number})"
        plan = RequestPlan(prefill=self.held.prefill(self.setup.provider))
        return Retry(plan, (GuardrailTriggered("continuation", line, mode),))

    def _cut_by_window(
        self, reply: Completed, streamed: str, kind: str, outcome: Answered
    ) -> Decision:
        """A reply cut at an output limit that was all the window left: an answer is kept as
        it is (regenerating it would be cut the same way), said once; a reply cut inside a
        tool call or before any text is asked again after compressing (a larger limit
        cannot be sent, room can be made)."""
        limit = outcome.sent_limit or 0
        room = (
            f"{limit:,} tokens, all the context window left for output "
            f"({self.setup.max_output_tokens:,} asked)"
        )
        advice = "/compact frees room, or give the model a larger context (model.contextWindow)"
        if kind == "text":
            line = f"the answer was cut at {room}; kept as it is. {advice}"
            log.warning("%s", line)
            self._accepted()
            return Accept(reply, (GuardrailTriggered("continuation", line, "cut_by_window"),))
        where = "inside a tool call's arguments" if kind == "tool_arguments" else "before any text"
        held, self.held = self.held, None
        text = held.text if held is not None else streamed
        discarded = _discarded(text, reply, f"cut at the output limit {where}")
        self.continuations += 1
        number = f"{self.continuations} of {self.policy.max_continuations}"
        line = f"the reply was cut {where} at {room}; compressing and asking again ({number})"
        event = GuardrailTriggered("continuation", line, "compress")
        return Retry(RequestPlan(compress=True), (*discarded, event))

    def _larger_limit(
        self, reply: Completed, streamed: str, kind: str, number: str, room: int | None = None
    ) -> Retry:
        limit = larger_limit(self.setup.max_output_tokens, self.continuations)
        limit = min(limit, room) if room is not None else limit  # what will really be sent
        where = {
            "tool_arguments": "inside a tool call's arguments",
            "no_text": "before any answer text",
        }.get(kind, "")
        cut = f"cut at the output limit {where}".rstrip()
        held, self.held = self.held, None
        text = held.text if held is not None else streamed
        discarded = _discarded(text, reply, cut)
        line = f"{cut}; asking again with a limit of {limit:,} tokens ({number})"
        event = GuardrailTriggered("continuation", line, "larger_limit")
        return Retry(RequestPlan(output_limit=limit), (*discarded, event))

    def _prefill_refused(self, message: str) -> Decision:
        self.setup.facts.prefill_refused = True
        log.warning("the server refused a prefill (%s); continuing with a larger limit", message)
        held, self.held = self.held, None
        limit = larger_limit(self.setup.max_output_tokens, self.continuations)
        line = (
            "the model does not continue a partial answer (prefill refused); asking again "
            f"with a limit of {limit:,} tokens"
        )
        discarded = (AttemptDiscarded(held.text, "prefill refused"),) if held else ()
        event = GuardrailTriggered("continuation", line, "larger_limit")
        return Retry(RequestPlan(output_limit=limit), (*discarded, event))

    def _mode(self) -> ContinuationMode:
        setup = self.setup
        return continuation_mode(
            setup.vendor,
            setup.model,
            thinking=setup.thinking,
            prefill_refused=setup.facts.prefill_refused,
        )


def with_plan(request: ModelRequest, plan: RequestPlan) -> ModelRequest:
    """``request`` as ``plan`` wants it sent: the corrective note (a user message that is
    never stored) or the partial answer to continue appended after the last message."""
    if plan.prefill is not None:
        messages = [*request.messages, plan.prefill]
        return replace(request, messages=messages, continue_final=True, request_only=1)
    if plan.note is not None:
        note = Message("user", (Text(plan.note),), origin="synthetic")
        return replace(request, messages=[*request.messages, note], request_only=1)
    return request


class StreamWatch:
    """Repetition detectors for one stream (answer text and thinking apart)."""

    def __init__(self) -> None:
        self.text = RepetitionDetector()
        self.thinking = RepetitionDetector()

    def feed(self, event: object) -> Repetition | None:
        """Look at one streamed event; the repetition it completes, if any."""
        if isinstance(event, AssistantText):
            return self.text.feed(event.text)
        if isinstance(event, AssistantThinking):
            return self.thinking.feed(event.text)
        return None


def _discarded(text: str, reply: Completed, reason: str) -> tuple[Event, ...]:
    """The AttemptDiscarded event for a reply thrown away, when anything of it was shown."""
    shown = text or any(isinstance(p, Thinking) and p.text for p in reply.parts)
    return (AttemptDiscarded(text, reason),) if shown else ()
