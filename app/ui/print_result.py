"""What a ``-p`` run produced: its events folded into the answer, the verdict and the counts.

The result is the kept answer only: text of an attempt the engine discarded (a cut stream, a
rolled-back reply) is never part of it. A run whose final attempt ended without an answer
falls back on the answer pool (the last complete answer text an attempt produced), marked
``fallback``; guardrail actions are counted for the JSON ``guardrails`` object.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from lull.engine.loop.attempts import RETRYABLE
from lull.model import defaults
from lull.model.edits import edit_to_dict
from lull.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    AttemptFinished,
    AttemptStarted,
    ContextEdited,
    Event,
    GuardrailTriggered,
    GuardStop,
    Notice,
    PromptOffloaded,
    RequestFinished,
    SubagentUpdate,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStop,
)
from lull.model.messages import ToolCall
from lull.model.provider import Usage
from lull.ui.headless.costs import request_cost, usage_cost

Subtype = Literal[
    "success",
    "error",
    "error_max_turns",
    "error_max_tokens",
    "error_empty",
    "error_rollbacks",
    "error_doom_loop",
    "error_tool_failures",
    "error_repetition",
    "fallback",
]
"""The ``subtype`` of the JSON result (Claude Code's names, and lull's guardrail stops)."""
GUARD_COUNTS = {
    "rollback": "rollbacks",
    "duplicate": "duplicates",
    "doom_loop": "doom_loops",
    "repetition": "repetitions",
    "continuation": "continuations",
    "tool_retry": "tool_retries",
    "attempt": "retried_attempts",
}
"""JSON ``guardrails`` key for each kind of guardrail action."""


GUARD_STOPS: dict[GuardStop, Subtype] = {
    "max_turns": "error_max_turns",
    "rollbacks": "error_rollbacks",
    "doom_loop": "error_doom_loop",
    "tool_failures": "error_tool_failures",
    "repetition": "error_repetition",
}


@dataclass(frozen=True)
class Limits:
    """The limits a turn can end on, for the messages that name them."""

    max_turns: int = defaults.MAX_TURNS
    max_output_tokens: int = defaults.MAX_OUTPUT_TOKENS


@dataclass(frozen=True)
class Verdict:
    """How a run ended: the JSON ``subtype`` and, for an error, the line that says why."""

    subtype: Subtype
    error: str | None = None


class RunResult:
    """What one -p run produced, for the final report; ``pricing`` is the price overrides
    setting and ``local`` whether the endpoint is on this machine or network (an unpriced
    model costs $0 there). The cost adds up each request at its own model's price (None if
    one is unknown). Usage, cost and guardrail counts add up over every attempt; the answer
    and the verdict are the final attempt's.
    """

    def __init__(
        self, pricing: Sequence[str] = (), *, local: bool = False, limits: Limits | None = None
    ) -> None:
        self.pricing = tuple(pricing)
        self.local = local
        self.limits = limits or Limits()
        self.attempt_text: list[str] = []  # the request streaming now; not kept yet
        self.kept_texts: list[str] = []  # text of each completed request of the turn
        self.discarded = 0
        self.final_text = ""
        self.usage = Usage()
        self.num_requests = 0
        self.error: str | None = None
        self.error_kind: str | None = None
        self.stop_reason: TurnStop | None = None  # set when the turn finished
        self.stop_detail = ""
        self.context_edits: list[dict[str, Any]] = []
        self.cost_usd: float | None = 0.0
        self.guards: Counter[str] = Counter()
        self.rollback_reasons: Counter[str] = Counter()
        self.denied: list[ToolCall] = []
        """The calls a permission refused (a rule, a hook, the mode), every attempt's."""
        self.attempts: list[AttemptFinished] = []
        self.command_output: str | None = None
        """What a built-in command printed, the result of a ``-p /command`` run."""
        self.offloaded: dict[str, Any] | None = None
        """Where the prompt was saved when it was too large to send whole (None: it was sent)."""

    def take(self, event: Event) -> None:
        """Fold one engine event into the result."""
        match event:
            case AssistantText(text):
                self.attempt_text.append(text)
            case AttemptDiscarded():
                self.attempt_text.clear()
                self.discarded += 1
            case RequestFinished():
                self._request_finished(event)
            case ContextEdited(edit, description):
                self.context_edits.append({**edit_to_dict(edit), "description": description})
            case TurnFinished(text, stop_reason, detail):
                self.final_text, self.stop_reason, self.stop_detail = text, stop_reason, detail
            case TurnFailed(message, kind):
                self.error, self.error_kind = message, kind
            case GuardrailTriggered(kind, _, reason):
                self.guards[GUARD_COUNTS[kind]] += 1
                if kind == "rollback":
                    self.rollback_reasons[reason] += 1
            case ToolStarted() | ToolFinished():
                self._tool(event)
            case AttemptStarted():
                self._new_attempt()
            case AttemptFinished():
                self.attempts.append(event)
            case SubagentUpdate(step="request", usage=usage, model=model) if usage is not None:
                self.usage = self.usage + usage  # a sub-agent's requests count in the run's cost
                cost = usage_cost(usage, model, self.pricing, local=self.local)
                total = self.cost_usd
                self.cost_usd = None if cost is None or total is None else total + cost
            case PromptOffloaded(path, tokens, limit):
                self.offloaded = {"path": path, "tokens": tokens, "limit": limit}
            case TurnStarted() | AssistantThinking() | Notice() | SubagentUpdate():
                pass
            case _:
                assert_never(event)

    def _tool(self, event: ToolStarted | ToolFinished) -> None:
        """Argument repairs count as guardrail actions; a refused call is a denial."""
        match event:
            case ToolStarted(repairs=repairs):
                self.guards["repairs"] += len(repairs)
            case ToolFinished(call, denied=True):
                self.denied.append(call)
            case ToolFinished():
                pass
            case _:
                assert_never(event)

    def _request_finished(self, event: RequestFinished) -> None:
        if event.purpose == "turn":
            self._keep_attempt()
        self.usage = self.usage + event.usage
        self.num_requests += 1
        cost = request_cost(event, self.pricing, local=self.local)
        total = self.cost_usd
        self.cost_usd = None if cost is None or total is None else total + cost

    def _keep_attempt(self) -> None:
        text = "".join(self.attempt_text)
        self.attempt_text.clear()
        if text.strip():
            self.kept_texts.append(text)

    def _new_attempt(self) -> None:
        """A fresh attempt starts: what the answer and the verdict are made of starts over."""
        self.attempt_text.clear()
        self.kept_texts.clear()
        self.final_text, self.stop_reason, self.stop_detail = "", None, ""
        self.error = self.error_kind = None

    @property
    def fallback(self) -> str:
        """The answer pool's text when the final attempt ended without an answer: the last
        complete, non-empty answer any attempt produced ("" when there is none)."""
        if not self.attempts or self.attempts[-1].outcome not in RETRYABLE | {"empty"}:
            return ""
        return next((a.answer for a in reversed(self.attempts) if a.answer.strip()), "")

    @property
    def answer(self) -> str:
        """The kept answer: the final one, else the pool's fallback, else what completed
        requests said (never text of a discarded or unfinished attempt); a built-in
        command's output."""
        if self.command_output is not None:
            return self.command_output
        if self.stop_reason is not None and self.final_text:
            return self.final_text
        return self.fallback or "\n\n".join(self.kept_texts)

    def verdict(self) -> Verdict:
        """Success, or which error the run ended with and the line that says why."""
        verdict = self._final_verdict()
        if verdict.error is not None and self.fallback:
            count = len(self.attempts)
            tried = f"{count} attempts" if count > 1 else "the attempt"
            return Verdict(
                "fallback",
                f"{tried} ended without a final answer ({verdict.error}); the result is the "
                "last answer text an attempt produced",
            )
        return verdict

    def _final_verdict(self) -> Verdict:
        if self.error:
            return Verdict("error", self.error)
        if self.command_output is not None:
            return Verdict("success")
        if self.stop_reason is None:
            return Verdict("error", "the turn ended without an answer")
        limits = self.limits
        match self.stop_reason:
            case "max_turns":
                return Verdict(
                    "error_max_turns",
                    f"the model had not finished after {limits.max_turns} model requests "
                    "(maxTurns); raise --max-turns, or continue with `lull -c -p ...`",
                )
            case "max_tokens":
                return Verdict(
                    "error_max_tokens",
                    "the answer was cut at the output token limit "
                    f"({limits.max_output_tokens:,} tokens, model.maxOutputTokens); "
                    "raise it or ask for a shorter answer",
                )
            case "rollbacks" | "doom_loop" | "tool_failures" | "repetition" as stop:
                return Verdict(GUARD_STOPS[stop], self.stop_detail or stop)
            case "end_turn" | "tool_use" | "refusal" | "other":
                if not self.final_text.strip():
                    return Verdict(
                        "error_empty", "the model answered nothing (no text and no tool call)"
                    )
                return Verdict("success")
            case _:
                assert_never(self.stop_reason)

    def guardrail_counts(self) -> dict[str, Any]:
        """The JSON ``guardrails`` object: how often each guard acted (0s included)."""
        counts: dict[str, Any] = {name: self.guards[name] for name in GUARD_COUNTS.values()}
        counts["repairs"] = self.guards["repairs"]
        counts["rollback_reasons"] = dict(sorted(self.rollback_reasons.items()))
        return counts

    def attempts_json(self) -> list[dict[str, Any]]:
        """The JSON ``attempts`` list: one entry per attempt."""
        return [
            {
                "attempt": a.number,
                "session_id": a.session_id,
                "outcome": a.outcome,
                "failure_type": a.failure_type,
                "summary": a.summary,
            }
            for a in self.attempts
        ]
