"""POST /v1/chat/completions: validate per dialect, simulate prefix caching, reply."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tests.fakes import openai_wire as wire
from tests.fakes.cache import openai_cached_tokens, openai_units
from tests.fakes.errors import bad_request
from tests.fakes.openai_validate import validate_openai
from tests.fakes.outcome import Outcome, json_frame, new_id
from tests.fakes.script import Reply, output_tokens
from tests.fakes.server_view import openai_view

if TYPE_CHECKING:
    from tests.fakes.server import FakeServer

EXTENDED_RETENTION_SECONDS = 24 * 3600.0


def _overflows(fake: FakeServer, total: int) -> bool:
    return fake.max_context_tokens is not None and total > fake.max_context_tokens


def _check_length(fake: FakeServer, total: int) -> None:
    limit = fake.max_context_tokens
    if limit is not None and total > limit:
        own = fake.quirks.overflow_error(total, limit)
        if own is not None:
            raise own
        raise bad_request(
            f"This model's maximum context length is {limit} tokens. However, your messages "
            f"resulted in {total} tokens. Please reduce the length of the messages.",
            code="context_length_exceeded",
            param="messages",
        )


def _one_token_answer(body: dict[str, Any]) -> tuple[None, Reply] | None:
    """A non-streamed request for one token (lull's usage probe) is answered with one token,
    as a real server would, without taking a scripted reply."""
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if body.get("stream") or limit != 1:
        return None
    return None, Reply(text="x", stop_reason="length", output_tokens=1)


def handle_chat(
    fake: FakeServer, body: dict[str, Any], texts: Sequence[str] | None = None
) -> Outcome:
    """Answer one Chat Completions request (JSON or SSE), or raise WireError."""
    if fake.quirks.html_page:
        page = b"<!doctype html><html><head><title>Sign in</title></head><body></body></html>"
        return Outcome(200, frames=[page], content_type="text/html; charset=utf-8", error="html")
    fake.quirks.check_content(body)
    validate_openai(body, fake.dialect)
    fake.quirks.check_continuation(body)
    body, texts = openai_view(body, texts, fake.thinking_billing, fake.dialect)
    if fake.quirks.ignore_tools:
        body = {key: value for key, value in body.items() if key not in ("tools", "tool_choice")}
    units = openai_units(body, texts, fake.prefix_memo)
    total = sum(tokens for _, tokens in units)
    if body.get("stream") and fake.quirks.empty_stream_on_overflow and _overflows(fake, total):
        return Outcome(200, frames=[], error="context overflow: an empty 200 stream")
    _check_length(fake, total)
    fake.quirks.check_output(body, total, fake.max_context_tokens)
    retention = body.get("prompt_cache_retention") == "24h"
    ttl = EXTENDED_RETENTION_SECONDS if retention else fake.openai_cache_ttl
    cached = openai_cached_tokens(units, fake.openai_cache, ttl, fake.openai_cache_granularity)
    item, reply = _one_token_answer(body) or fake.take_reply(body)
    calls = wire.tool_calls(reply)
    usage = wire.usage(total, cached, output_tokens(reply), reply.thinking or "", fake.dialect)
    meta = {
        "id": new_id("chatcmpl-"),
        "created": int(fake.clock.now()),
        "model": body["model"],
        "system_fingerprint": "fp_fake",
    }
    if not body.get("stream"):
        completion = wire.completion(meta, reply, calls, usage)
        if not fake.quirks.report_usage:
            del completion["usage"]
        return Outcome(200, body=completion, usage=usage)
    options = body.get("stream_options") or {}
    wanted = options.get("include_usage") and fake.quirks.stream_usage
    include = usage if wanted and fake.quirks.report_usage else None
    frames = [json_frame(c) for c in wire.chunks(meta, reply, calls, include)]
    if fake.quirks.usage_only_stream:
        frames = [
            json_frame({**meta, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        ]
    frames.append(json_frame("[DONE]"))
    outcome = Outcome(
        200,
        frames=frames,
        usage=usage,
        frame_delay=reply.chunk_delay,
        first_delay=reply.first_delay,
        hold=reply.hold,
    )
    fault = fake.faults.take_stream_fault()
    if fault is not None:
        fake.requeue(item)
        outcome.cut_after = min(fault.after_events, len(frames) - 1)
        outcome.error = fault.describe()
        if fault.kind == "error":
            error = {"message": fault.message, "type": fault.error_type, "param": None}
            outcome.error_frame = json_frame({"error": {**error, "code": None}})
    return outcome
