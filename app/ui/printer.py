"""One-shot mode (``lull -p``): run one turn and print the result as text or JSON.

Nothing here can ask the user anything: actions that need approval are
denied with a result the model sees, so a script never hangs. The result is the kept
answer only: text of an attempt the engine discarded (a cut stream) is never part of it.
A turn that did not end with an answer (the output token limit, ``maxTurns``, nothing
said) is an error: one line on stderr, ``is_error`` and its ``subtype`` in JSON, exit 1.
SIGHUP (the terminal went away) stops the turn and saves the session (exit 129).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TextIO, assert_never

from app.catalog.pricing import cost_usd
from app.engine.approvals import DenyApprover
from app.model import defaults
from app.model.edits import edit_to_dict
from app.model.events import (
    AssistantText,
    AssistantThinking,
    AttemptDiscarded,
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    SubagentUpdate,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStop,
)
from app.model.provider import Usage
from app.model.text import json_text, wire_text
from app.runtime import RunOptions, Runtime
from app.ui.formats import OutputFormat
from app.ui.shared.hangup import HANGUP_EXIT, HangupWatch
from app.ui.shared.startup import open_runtime

NO_TTY_DENIAL = (
    "denied: lull is running non-interactively (-p) and cannot ask the user; "
    "re-run with --approval-mode auto-edit or yolo to allow this"
)


Subtype = Literal["success", "error", "error_max_turns", "error_max_tokens", "error_empty"]
"""The ``subtype`` of the JSON result (Claude Code's names)."""
HANGUP_MESSAGE = "the terminal went away (SIGHUP); the turn was stopped and the session saved"


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
    one is unknown).
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
        self.context_edits: list[dict[str, Any]] = []
        self.cost_usd: float | None = 0.0

    def take(self, event: Event) -> None:
        """Fold one engine event into the result."""
        match event:
            case AssistantText(text):
                self.attempt_text.append(text)
            case AttemptDiscarded():
                self.attempt_text.clear()
                self.discarded += 1
            case RequestFinished():
                self._keep_attempt()
                self.usage = self.usage + event.usage
                self.num_requests += 1
                cost = _request_cost(event, self.pricing, local=self.local)
                total = self.cost_usd
                self.cost_usd = None if cost is None or total is None else total + cost
            case ContextEdited(edit, description):
                self.context_edits.append({**edit_to_dict(edit), "description": description})
            case SubagentUpdate(step="request", usage=usage, model=model) if usage is not None:
                self.usage = self.usage + usage  # a sub-agent's requests count in the run's cost
                cost = _usage_cost(usage, model, self.pricing, local=self.local)
                total = self.cost_usd
                self.cost_usd = None if cost is None or total is None else total + cost
            case SubagentUpdate():
                pass
            case TurnFinished(text, stop_reason):
                self.final_text, self.stop_reason = text, stop_reason
            case TurnFailed(message, kind):
                self.error, self.error_kind = message, kind
            case TurnStarted() | AssistantThinking() | ToolStarted() | ToolFinished() | Notice():
                pass
            case _:
                assert_never(event)

    def _keep_attempt(self) -> None:
        text = "".join(self.attempt_text)
        self.attempt_text.clear()
        if text.strip():
            self.kept_texts.append(text)

    @property
    def answer(self) -> str:
        """The kept answer: the final one, else what completed requests said (never text of
        a discarded or unfinished attempt)."""
        if self.stop_reason is not None and self.final_text:
            return self.final_text
        return "\n\n".join(self.kept_texts)

    def verdict(self) -> Verdict:
        """Success, or which error the run ended with and the line that says why."""
        if self.error:
            return Verdict("error", self.error)
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
            case "end_turn" | "tool_use" | "refusal" | "other":
                if not self.final_text.strip():
                    return Verdict(
                        "error_empty", "the model answered nothing (no text and no tool call)"
                    )
                return Verdict("success")
            case _:
                assert_never(self.stop_reason)


def run_print(options: RunOptions, prompt: str, output_format: OutputFormat) -> int:
    """Run ``prompt`` as one turn; returns the exit code (0 ok, 1 error, 2 usage, 129 the
    terminal went away)."""
    runtime, code = open_runtime(options)
    if runtime is None:
        return code
    agent = runtime.agent
    agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    started = time.monotonic()
    limits = Limits(runtime.settings.max_turns, agent.config.max_output_tokens)
    result = RunResult(runtime.settings.pricing, local=runtime.local_endpoint(), limits=limits)
    if output_format == "stream-json":
        _emit(
            {
                "type": "system",
                "subtype": "init",
                "session_id": agent.session.id,
                "model": runtime.provider_config.model,
                "cwd": str(options.workspace),
            }
        )
    unsaved: str | None = None
    hung_up = False
    try:
        hung_up = asyncio.run(_drive(agent.run_turn(prompt), result, output_format, runtime))
    except KeyboardInterrupt:
        result.error, result.error_kind = "interrupted by the user", "cancelled"
    finally:
        unsaved = runtime.close()
    if hung_up:
        result.error, result.error_kind = HANGUP_MESSAGE, "cancelled"
    duration_ms = int((time.monotonic() - started) * 1000)
    code = _report(output_format, result, agent.session.id, duration_ms)
    if hung_up:
        return HANGUP_EXIT
    if unsaved:
        print(f"lull: error: {unsaved}", file=sys.stderr)
        return code or 1
    return code


async def _drive(
    events: AsyncIterator[Event],
    result: RunResult,
    output_format: OutputFormat,
    runtime: Runtime | None = None,
) -> bool:
    """Run the turn, printing as it goes; True if SIGHUP stopped it. MCP servers start now,
    while the first request is prepared, and that request waits for them."""
    if runtime is not None:
        runtime.start_tools(wait=True)
    task = asyncio.create_task(_consume(events, result, output_format))

    def stop_turn() -> None:
        task.cancel()  # the engine gives a running tool call its result; the session is saved

    watch = HangupWatch(stop_turn, poll_seconds=None)
    watch.start()
    try:
        await task
    except asyncio.CancelledError:
        if not watch.fired:
            raise
    finally:
        watch.stop()
        if runtime is not None:
            await runtime.stop_tools()
    return watch.fired


async def _consume(
    events: AsyncIterator[Event], result: RunResult, output_format: OutputFormat
) -> None:
    async for event in events:
        result.take(event)
        match output_format:
            case "stream-json":
                _emit(event_to_json(event, result.pricing, local=result.local))
            case "text":
                if isinstance(event, Notice):
                    print(f"lull: {wire_text(event.text)}", file=sys.stderr)
                elif isinstance(event, ContextEdited):
                    print(f"lull: {event.description}", file=sys.stderr)
            case "json":
                pass
            case _:
                assert_never(output_format)


def _report(
    output_format: OutputFormat, result: RunResult, session_id: str, duration_ms: int
) -> int:
    verdict = result.verdict()
    text = result.answer
    if output_format == "text":
        if text:
            print(wire_text(text))
    else:
        payload = {
            "type": "result",
            "subtype": verdict.subtype,
            "is_error": verdict.error is not None,
            "session_id": session_id,
            "result": text,
            "error": verdict.error,
            "stop_reason": result.stop_reason,
            "usage": result.usage.to_dict(),
            "usage_reported": result.usage.reported,
            "cache_hit_ratio": _rounded(result.usage.cache_hit_ratio),
            "cost_usd": None if result.cost_usd is None else round(result.cost_usd, 6),
            "num_requests": result.num_requests,
            "duration_ms": duration_ms,
            "context_edits": result.context_edits,
        }
        _emit(payload)
    if verdict.error is None:
        return 0
    print(f"lull: error: {verdict.error}", file=sys.stderr)
    return 1


def _request_cost(
    event: RequestFinished, pricing: Sequence[str], *, local: bool = False
) -> float | None:
    """What one request cost; None when its price or its usage is unknown (a server that
    reports no usage has not told us what it counted)."""
    return _usage_cost(event.usage, event.model, pricing, local=local)


def _usage_cost(
    usage: Usage, model: str, pricing: Sequence[str], *, local: bool = False
) -> float | None:
    if not usage.reported:
        return None
    return cost_usd(usage, model, pricing, local=local)


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def event_to_json(
    event: Event, pricing: Sequence[str] = (), *, local: bool = False
) -> dict[str, Any]:
    """One engine event as a stream-json line (``pricing``: the price overrides setting;
    ``local``: the endpoint is on this machine or network)."""
    match event:
        case ToolStarted(call):
            return {
                "type": "tool_start",
                "id": call.id,
                "name": call.name,
                "arguments": dict(call.arguments),
            }
        case ToolFinished(call, result):
            return {
                "type": "tool_result",
                "id": call.id,
                "name": call.name,
                "is_error": result.is_error,
                "content": result.content,
            }
        case RequestFinished():
            return {
                "type": "usage",
                "request": event.index,
                "purpose": event.purpose,
                "model": event.model,
                "usage": event.usage.to_dict(),
                "usage_reported": event.usage.reported,
                "cache_hit_ratio": _rounded(event.usage.cache_hit_ratio),
                "cost_usd": _rounded(_request_cost(event, pricing, local=local), 6),
                "context_tokens": event.context_tokens,
            }
        case ContextEdited(edit, description):
            return {"type": "context_edit", "description": description, "edit": edit_to_dict(edit)}
        case AttemptDiscarded(text, reason):
            return {"type": "discarded", "text": text, "reason": reason}
        case SubagentUpdate(usage=usage):
            data: dict[str, Any] = {
                "type": "subagent",
                "id": event.call_id,
                "agent": event.agent,
                "step": event.step,
                "text": event.text,
                "session_id": event.session_id,
            }
            if usage is not None:
                data["usage"] = usage.to_dict()
                data["model"] = event.model
                data["cost_usd"] = _rounded(
                    _usage_cost(usage, event.model, pricing, local=local), 6
                )
            return data
        case (
            TurnStarted()
            | AssistantText()
            | AssistantThinking()
            | Notice()
            | TurnFinished()
            | TurnFailed()
        ):
            return _fields(event)
        case _:
            assert_never(event)


def _fields(event: Event) -> dict[str, Any]:
    """An event's own fields under its snake_case type name."""
    data: dict[str, Any] = {"type": _snake(type(event).__name__)}
    for key in event.__dataclass_fields__:
        data[key] = getattr(event, key)
    return data


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def _emit(payload: dict[str, Any], out: TextIO | None = None) -> None:
    stream = out or sys.stdout
    stream.write(json_text(payload) + "\n")
    stream.flush()
