"""One-shot mode (``lull -p``): run one turn and print the result as text or JSON.

Nothing here can ask the user anything: actions that need approval are
denied with a result the model sees, so a script never hangs.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, TextIO, assert_never

from app.catalog.pricing import cost_usd
from app.engine.approvals import DenyApprover
from app.model.edits import edit_to_dict
from app.model.events import (
    AssistantText,
    AssistantThinking,
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from app.model.provider import Usage
from app.model.text import json_text, wire_text
from app.runtime import RunOptions
from app.ui.formats import OutputFormat
from app.ui.shared.startup import open_runtime

NO_TTY_DENIAL = (
    "denied: lull is running non-interactively (-p) and cannot ask the user; "
    "re-run with --approval-mode auto-edit or yolo to allow this"
)


class RunResult:
    """What one -p run produced, for the final report; ``pricing`` is the price overrides
    setting. The cost adds up each request at its own model's price (None if one is unknown).
    """

    def __init__(self, pricing: Sequence[str] = ()) -> None:
        self.pricing = tuple(pricing)
        self.text_parts: list[str] = []
        self.final_text = ""
        self.usage = Usage()
        self.num_requests = 0
        self.error: str | None = None
        self.error_kind: str | None = None
        self.stop_reason = ""
        self.context_edits: list[dict[str, Any]] = []
        self.cost_usd: float | None = 0.0

    def take(self, event: Event) -> None:
        """Fold one engine event into the result."""
        match event:
            case AssistantText(text):
                self.text_parts.append(text)
            case RequestFinished():
                self.usage = self.usage + event.usage
                self.num_requests += 1
                cost = _request_cost(event, self.pricing)
                total = self.cost_usd
                self.cost_usd = None if cost is None or total is None else total + cost
            case ContextEdited(edit, description):
                self.context_edits.append({**edit_to_dict(edit), "description": description})
            case TurnFinished(text, stop_reason):
                self.final_text, self.stop_reason = text, stop_reason
            case TurnFailed(message, kind):
                self.error, self.error_kind = message, kind
            case TurnStarted() | AssistantThinking() | ToolStarted() | ToolFinished() | Notice():
                pass
            case _:
                assert_never(event)


def run_print(options: RunOptions, prompt: str, output_format: OutputFormat) -> int:
    """Run ``prompt`` as one turn; returns the exit code (0 ok, 1 error, 2 usage)."""
    runtime, code = open_runtime(options)
    if runtime is None:
        return code
    agent = runtime.agent
    agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    started = time.monotonic()
    result = RunResult(runtime.settings.pricing)
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
    try:
        asyncio.run(_drive(agent.run_turn(prompt), result, output_format))
    except KeyboardInterrupt:
        result.error, result.error_kind = "interrupted by the user", "cancelled"
    finally:
        unsaved = runtime.close()
    duration_ms = int((time.monotonic() - started) * 1000)
    code = _report(output_format, result, agent.session.id, duration_ms)
    if unsaved:
        print(f"lull: error: {unsaved}", file=sys.stderr)
        return code or 1
    return code


async def _drive(
    events: AsyncIterator[Event], result: RunResult, output_format: OutputFormat
) -> None:
    async for event in events:
        result.take(event)
        match output_format:
            case "stream-json":
                _emit(event_to_json(event, result.pricing))
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
    code = 1 if result.error else 0
    text = result.final_text or "".join(result.text_parts)
    if output_format == "text":
        if text:
            print(wire_text(text))
        if result.error:
            print(f"lull: error: {result.error}", file=sys.stderr)
        return code
    payload = {
        "type": "result",
        "subtype": "error" if result.error else "success",
        "is_error": bool(result.error),
        "session_id": session_id,
        "result": text,
        "error": result.error,
        "stop_reason": result.stop_reason or None,
        "usage": result.usage.to_dict(),
        "usage_reported": result.usage.reported,
        "cache_hit_ratio": _rounded(result.usage.cache_hit_ratio),
        "cost_usd": None if result.cost_usd is None else round(result.cost_usd, 6),
        "num_requests": result.num_requests,
        "duration_ms": duration_ms,
        "context_edits": result.context_edits,
    }
    _emit(payload)
    if result.error and output_format == "json":
        print(f"lull: error: {result.error}", file=sys.stderr)
    return code


def _request_cost(event: RequestFinished, pricing: Sequence[str]) -> float | None:
    """What one request cost; None when its price or its usage is unknown (a server that
    reports no usage has not told us what it counted)."""
    if not event.usage.reported:
        return None
    return cost_usd(event.usage, event.model, pricing)


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def event_to_json(event: Event, pricing: Sequence[str] = ()) -> dict[str, Any]:
    """One engine event as a stream-json line (``pricing``: the price overrides setting)."""
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
                "cost_usd": _rounded(_request_cost(event, pricing), 6),
                "context_tokens": event.context_tokens,
            }
        case ContextEdited(edit, description):
            return {"type": "context_edit", "description": description, "edit": edit_to_dict(edit)}
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
