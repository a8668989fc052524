"""POST /v1/messages and /v1/messages/count_tokens: validate, simulate caching, reply."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tests.fakes import anthropic_wire as wire
from tests.fakes.anthropic_validate import thinking_type, validate_anthropic
from tests.fakes.cache import anthropic_blocks, anthropic_cache_usage, min_cache_tokens
from tests.fakes.errors import bad_request
from tests.fakes.outcome import Outcome, json_frame, new_id
from tests.fakes.script import Reply, last_user_text, output_tokens
from tests.fakes.server_tools import search_blocks
from tests.fakes.server_view import anthropic_view

if TYPE_CHECKING:
    from tests.fakes.server import FakeServer


def _check_length(fake: FakeServer, total: int) -> None:
    limit = fake.max_context_tokens
    if limit is not None and total > limit:
        raise bad_request(f"prompt is too long: {total} tokens > {limit} maximum")


def _with_search(
    body: dict[str, Any], reply: Reply, content: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``content`` with the server-side search's blocks after the thinking."""
    assert reply.web_search is not None
    thinking = [b for b in content if b["type"] in ("thinking", "redacted_thinking")]
    rest = content[len(thinking) :]
    searched = search_blocks(body, reply.web_search, last_user_text(body))
    return [*thinking, *searched, *rest]


def handle_messages(
    fake: FakeServer, body: dict[str, Any], texts: Sequence[str] | None = None
) -> Outcome:
    """Answer one Messages request (JSON or SSE), or raise WireError."""
    validate_anthropic(body, fake.signer, texts, fake.accepted)

    def count(seen: dict[str, Any], seen_texts: Sequence[str] | None) -> int:
        return sum(b.tokens for b in anthropic_blocks(seen, seen_texts, fake.prefix_memo))

    body, texts = anthropic_view(body, texts, fake.thinking_billing, fake.context_management, count)
    blocks = anthropic_blocks(body, texts, fake.prefix_memo)
    _check_length(fake, sum(b.tokens for b in blocks))
    minimum = min_cache_tokens(body["model"], fake.cache_minimums, fake.cache_min_default)
    usage = anthropic_cache_usage(blocks, fake.anthropic_cache, minimum)
    item: Reply | None = None
    if body["max_tokens"] == 0:  # cache pre-warm: no output, script untouched
        reply = Reply(stop_reason="max_tokens", output_tokens=0)
    else:
        item, reply = fake.take_reply(body)
    content = wire.content_blocks(reply, fake.signer, thinking_type(body) == "enabled")
    if body["max_tokens"] == 0:
        content = []
    elif reply.web_search is not None:
        content = _with_search(body, reply, content)
        usage["server_tool_use"] = {"web_search_requests": 1}
    usage["output_tokens"] = output_tokens(reply)
    msg_id = new_id("msg_01")
    full = wire.message(msg_id, body["model"], content, wire.stop_reason(reply), usage)
    if not body.get("stream"):
        return Outcome(200, body=full, usage=usage)
    events = wire.stream_events(full, reply.chunk_size)
    frames = [json_frame(data, event=name) for name, data in events]
    outcome = Outcome(
        200,
        frames=frames,
        frame_delay=reply.chunk_delay,
        first_delay=reply.first_delay,
        hold=reply.hold,
    )
    outcome.usage = usage
    fault = fake.faults.take_stream_fault()
    if fault is not None:
        fake.requeue(item)
        outcome.cut_after = min(fault.after_events, len(events) - 1)
        outcome.error = fault.describe()
        if fault.kind == "error":
            error = {"type": "error", "error": {"type": fault.error_type, "message": fault.message}}
            outcome.error_frame = json_frame(error, event="error")
    return outcome


def handle_count_tokens(
    fake: FakeServer, body: dict[str, Any], texts: Sequence[str] | None = None
) -> Outcome:
    """Answer count_tokens with the same ceil(chars/4) estimate the cache simulator uses."""
    if not isinstance(body.get("model"), str):
        raise bad_request("model: Field required")
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        raise bad_request("messages: at least one message is required")
    total = sum(b.tokens for b in anthropic_blocks(body, texts, fake.prefix_memo))
    return Outcome(200, body={"input_tokens": total})
