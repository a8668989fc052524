"""One-shot mode (``lull -p``): run one turn and print the result as text or JSON.

Nothing here can ask the user anything: actions that need approval are
denied with a result the model sees, so a script never hangs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from app.catalog.pricing import cost_usd
from app.model.approvals import DenyApprover
from app.model.edits import edit_to_dict
from app.model.events import (
    AssistantText,
    ContextEdited,
    Event,
    Notice,
    RequestFinished,
    ToolFinished,
    ToolStarted,
    TurnFailed,
    TurnFinished,
)
from app.model.provider import Usage
from app.ui.startup import open_runtime

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
        if isinstance(event, AssistantText):
            self.text_parts.append(event.text)
        elif isinstance(event, RequestFinished):
            self.usage = self.usage + event.usage
            self.num_requests += 1
            cost = cost_usd(event.usage, event.model, self.pricing)
            self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost
        elif isinstance(event, ContextEdited):
            self.context_edits.append(
                {**edit_to_dict(event.edit), "description": event.description}
            )
        elif isinstance(event, TurnFinished):
            self.final_text = event.text
            self.stop_reason = event.stop_reason
        elif isinstance(event, TurnFailed):
            self.error, self.error_kind = event.message, event.kind


def run_print(args: argparse.Namespace, workspace: Path, prompt: str) -> int:
    """Run ``prompt`` as one turn; returns the exit code (0 ok, 1 error, 2 usage)."""
    runtime, code = open_runtime(args, workspace)
    if runtime is None:
        return code
    agent = runtime.agent
    agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    started = time.monotonic()
    result = RunResult(runtime.loaded.settings.pricing)
    stream = args.output_format == "stream-json"
    if stream:
        _emit(
            {
                "type": "system",
                "subtype": "init",
                "session_id": agent.session.id,
                "model": runtime.provider_config.model,
                "cwd": str(workspace),
            }
        )
    try:
        asyncio.run(_drive(agent.run_turn(prompt), result, stream, args.output_format))
    except KeyboardInterrupt:
        result.error, result.error_kind = "interrupted by the user", "cancelled"
    finally:
        agent.session.close()
    duration_ms = int((time.monotonic() - started) * 1000)
    return _report(args.output_format, result, agent.session.id, duration_ms)


async def _drive(events: Any, result: RunResult, stream: bool, output_format: str) -> None:
    async for event in events:
        result.take(event)
        if stream:
            _emit(event_to_json(event, result.pricing))
        elif isinstance(event, Notice | ContextEdited) and output_format == "text":
            line = event.text if isinstance(event, Notice) else event.description
            print(f"lull: {line}", file=sys.stderr)


def _report(output_format: str, result: RunResult, session_id: str, duration_ms: int) -> int:
    code = 1 if result.error else 0
    text = result.final_text or "".join(result.text_parts)
    if output_format == "text":
        if text:
            print(text)
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


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def event_to_json(event: Event, pricing: Sequence[str] = ()) -> dict[str, Any]:
    """One engine event as a stream-json line (``pricing``: the price overrides setting)."""
    name = type(event).__name__
    if isinstance(event, ToolStarted):
        return {
            "type": "tool_start",
            "id": event.call.id,
            "name": event.call.name,
            "arguments": dict(event.call.arguments),
        }
    if isinstance(event, ToolFinished):
        return {
            "type": "tool_result",
            "id": event.call.id,
            "name": event.call.name,
            "is_error": event.result.is_error,
            "content": event.result.content,
        }
    if isinstance(event, RequestFinished):
        return {
            "type": "usage",
            "request": event.index,
            "purpose": event.purpose,
            "model": event.model,
            "usage": event.usage.to_dict(),
            "cache_hit_ratio": _rounded(event.usage.cache_hit_ratio),
            "cost_usd": _rounded(cost_usd(event.usage, event.model, pricing), 6),
            "context_tokens": event.context_tokens,
        }
    if isinstance(event, ContextEdited):
        return {
            "type": "context_edit",
            "description": event.description,
            "edit": edit_to_dict(event.edit),
        }
    data: dict[str, Any] = {"type": _snake(name)}
    for key in getattr(event, "__dataclass_fields__", {}):
        data[key] = getattr(event, key)
    return data


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def _emit(payload: dict[str, Any], out: TextIO | None = None) -> None:
    stream = out or sys.stdout
    stream.write(json.dumps(payload, ensure_ascii=False) + "\n")
    stream.flush()
