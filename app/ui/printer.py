"""One-shot mode (``lull -p``): run the prompt and print the result as text or JSON.

Nothing here can ask the user anything: actions that need approval are
denied with a result the model sees, so a script never hangs. The result is the kept
answer only (:mod:`lull.ui.print_result`): text of an attempt the engine discarded (a cut
stream, a rolled-back reply) is never part of it. A turn that did not end with an answer
(the output token limit, ``maxTurns``, a guardrail stop, nothing said) is an error: one
line on stderr, ``is_error`` and its ``subtype`` in JSON, exit 1. With ``--max-attempts N``
such a run is tried again in a fresh session with a summary of what failed
(:mod:`lull.engine.loop.attempts`). SIGHUP (the terminal went away) stops the turn and
saves the session (exit 129).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, TextIO, assert_never

from lull.context.tool_stats import tool_stats
from lull.engine.calls.approvals import DenyApprover
from lull.engine.loop.agent import Agent
from lull.engine.loop.attempts import AttemptUnavailable, run_attempts
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
    Notice,
    PromptOffloaded,
    RequestFinished,
    SubagentUpdate,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from lull.model.text import json_text, terminal_text
from lull.runtime import RunOptions, Runtime, SwitchError
from lull.ui.formats import OutputFormat
from lull.ui.print_result import Limits, RunResult, Verdict, request_cost, usage_cost
from lull.ui.shared.hangup import HANGUP_EXIT, HangupWatch
from lull.ui.shared.startup import open_runtime

__all__ = ["Limits", "RunResult", "Verdict", "event_to_json", "run_print"]

NO_TTY_DENIAL = (
    "denied: lull is running non-interactively (-p) and cannot ask the user; "
    "re-run with --approval-mode auto-edit or yolo to allow this"
)


HANGUP_MESSAGE = "the terminal went away (SIGHUP); the turn was stopped and the session saved"


def run_print(options: RunOptions, prompt: str, output_format: OutputFormat) -> int:
    """Run ``prompt`` (as up to ``guardrails.maxAttempts`` attempts); returns the exit code
    (0 ok, 1 error, 2 usage, 129 the terminal went away)."""
    runtime, code = open_runtime(options)
    if runtime is None:
        return code
    agent = runtime.agent
    agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    attempts = run_attempts(
        agent, lambda: _fresh_agent(runtime), prompt, runtime.settings.guardrails.max_attempts
    )
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
        hung_up = asyncio.run(_drive(attempts, result, output_format, runtime))
    except KeyboardInterrupt:
        result.error, result.error_kind = "interrupted by the user", "cancelled"
    finally:
        unsaved = runtime.close()
    if hung_up:
        result.error, result.error_kind = HANGUP_MESSAGE, "cancelled"
    duration_ms = int((time.monotonic() - started) * 1000)
    session = runtime.agent.session
    tools = {
        stats.name: stats.to_dict()
        for stats in tool_stats(session.transcript, session.edits, session.record.tool_seconds)
    }
    code = _report(output_format, result, session.id, duration_ms, tools)
    if hung_up:
        return HANGUP_EXIT
    if unsaved:
        _say(f"error: {unsaved}")
        return code or 1
    return code


def _fresh_agent(runtime: Runtime) -> Agent:
    """The agent of a fresh attempt: a new session (the failed one is saved and closed)."""
    try:
        runtime.new_session()
    except SwitchError as error:
        raise AttemptUnavailable(str(error)) from error
    agent = runtime.agent
    agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    return agent


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
            for notice in await runtime.end_session("other"):
                _say(f"{notice.level}: {notice.text}")
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
                if isinstance(event, Notice | GuardrailTriggered | PromptOffloaded):
                    _say(event.text)
                elif isinstance(event, ContextEdited):
                    _say(event.description)
            case "json":  # stdout is the result alone; what went wrong is said on stderr
                warning = isinstance(event, Notice) and event.level != "info"
                if isinstance(event, PromptOffloaded) or (isinstance(event, Notice) and warning):
                    _say(event.text)
            case _:
                assert_never(output_format)


def _report(
    output_format: OutputFormat,
    result: RunResult,
    session_id: str,
    duration_ms: int,
    tools: dict[str, Any] | None = None,
) -> int:
    verdict = result.verdict()
    text = result.answer
    if output_format == "text":
        if text:  # plain text, to a terminal or a pipe (one that may end in a terminal)
            print(terminal_text(text))
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
            "guardrails": result.guardrail_counts(),
            "attempts": result.attempts_json(),
            "tools": tools or {},
            "prompt_offloaded": result.offloaded,
        }
        _emit(payload)
    if verdict.error is None:
        return 0
    _say(f"error: {verdict.error}")
    return 1


def _say(text: str) -> None:
    """One ``lull: …`` line on stderr, control characters shown (:func:`terminal_text`)."""
    print(f"lull: {terminal_text(text)}", file=sys.stderr)


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def event_to_json(
    event: Event, pricing: Sequence[str] = (), *, local: bool = False
) -> dict[str, Any]:
    """One engine event as a stream-json line (``pricing``: the price overrides setting;
    ``local``: the endpoint is on this machine or network)."""
    match event:
        case ToolStarted(call, _, repairs):
            return {
                "type": "tool_start",
                "id": call.id,
                "name": call.name,
                "arguments": dict(call.arguments),
                "repairs": list(repairs),
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
                "cost_usd": _rounded(request_cost(event, pricing, local=local), 6),
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
                data["cost_usd"] = _rounded(usage_cost(usage, event.model, pricing, local=local), 6)
            return data
        case GuardrailTriggered(kind, text, reason):
            return {"type": "guardrail", "kind": kind, "text": text, "reason": reason}
        case AttemptStarted(number, total, session_id):
            return {
                "type": "attempt_start",
                "attempt": number,
                "of": total,
                "session_id": session_id,
            }
        case AttemptFinished():
            return {
                "type": "attempt",
                "attempt": event.number,
                "session_id": event.session_id,
                "outcome": event.outcome,
                "failure_type": event.failure_type,
                "summary": event.summary,
            }
        case (
            TurnStarted()
            | AssistantText()
            | AssistantThinking()
            | Notice()
            | PromptOffloaded()
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
