"""Anthropic prompt-caching simulation: breakpoints, lookback, TTLs, minimums."""

from __future__ import annotations

from typing import Any

from tests.fakes import FakeServer
from tests.fakes_selftest.conftest import MODEL, user

BIG = "lorem ipsum " * 500  # ~1500 tokens once JSON-encoded


def system(ttl: str = "5m") -> list[dict[str, Any]]:
    """A large cached system prompt."""
    return [{"type": "text", "text": BIG, "cache_control": {"type": "ephemeral", "ttl": ttl}}]


def usage(client: Any, **kwargs: Any) -> Any:
    """Usage of one streamed request (cache numbers arrive in message_start)."""
    kwargs.setdefault("messages", [user("hello")])
    with client.messages.stream(model=MODEL, max_tokens=100, **kwargs) as stream:
        return stream.get_final_message().usage


def test_write_then_read_then_expire(fake: FakeServer, anthropic_client: Any) -> None:
    first = usage(anthropic_client, system=system())
    assert first.cache_creation_input_tokens > 1024
    assert first.cache_creation.ephemeral_5m_input_tokens == first.cache_creation_input_tokens
    assert first.cache_read_input_tokens == 0
    second = usage(anthropic_client, system=system(), messages=[user("other question")])
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0
    assert second.input_tokens > 0
    fake.clock.advance(299)
    assert usage(anthropic_client, system=system()).cache_read_input_tokens > 0  # refreshed
    fake.clock.advance(301)
    expired = usage(anthropic_client, system=system())
    assert expired.cache_read_input_tokens == 0
    assert expired.cache_creation_input_tokens == first.cache_creation_input_tokens
    assert fake.journal[-1].usage["cache_creation_input_tokens"] > 0


def test_one_hour_ttl_survives_ten_minutes(fake: FakeServer, anthropic_client: Any) -> None:
    first = usage(anthropic_client, system=system("1h"))
    assert first.cache_creation.ephemeral_1h_input_tokens == first.cache_creation_input_tokens
    fake.clock.advance(600)
    assert usage(anthropic_client, system=system("1h")).cache_read_input_tokens > 0


def test_below_minimum_is_not_cached(anthropic_client: Any) -> None:
    short = [{"type": "text", "text": "short", "cache_control": {"type": "ephemeral"}}]
    usage(anthropic_client, system=short)
    again = usage(anthropic_client, system=short)
    assert again.cache_read_input_tokens == 0 and again.cache_creation_input_tokens == 0


def _blocks(prefix: str, count: int, size: int = 300) -> list[dict[str, Any]]:
    return [{"type": "text", "text": f"{prefix} {i} " + "x" * size} for i in range(count)]


def _marked(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blocks as one user message with a breakpoint on the last block."""
    content = [dict(b) for b in blocks]
    content[-1]["cache_control"] = {"type": "ephemeral"}
    return [{"role": "user", "content": content}]


def test_lookback_is_twenty_blocks(anthropic_client: Any) -> None:
    base = _blocks("base", 15)
    written = usage(anthropic_client, messages=_marked(base)).cache_creation_input_tokens
    assert written > 1024
    near = usage(anthropic_client, messages=_marked(base + _blocks("near", 19, 5)))
    assert near.cache_read_input_tokens == written  # breakpoint 19 blocks after the entry
    far = usage(anthropic_client, messages=_marked(base + _blocks("far", 20, 5)))
    assert far.cache_read_input_tokens == 0  # 20 blocks after: out of reach
    assert far.cache_creation_input_tokens > written


def test_top_level_cache_control_caches_the_whole_prompt(anthropic_client: Any) -> None:
    messages = [user(BIG)]
    first = usage(anthropic_client, messages=messages, cache_control={"type": "ephemeral"})
    assert first.input_tokens == 0 and first.cache_creation_input_tokens > 1024
    follow = [*messages, {"role": "assistant", "content": "ok"}, user("next")]
    second = usage(anthropic_client, messages=follow, cache_control={"type": "ephemeral"})
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens > 0


def test_changing_tools_invalidates(anthropic_client: Any) -> None:
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object"}}
    usage(anthropic_client, system=system(), tools=[tool])
    changed = {**tool, "description": "different"}
    assert usage(anthropic_client, system=system(), tools=[changed]).cache_read_input_tokens == 0


def test_reordered_schema_keys_are_a_different_prefix(anthropic_client: Any) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    tool = {"name": "t", "description": "d", "input_schema": schema}
    usage(anthropic_client, system=system(), tools=[tool])
    assert usage(anthropic_client, system=system(), tools=[tool]).cache_read_input_tokens > 0
    reordered = {**tool, "input_schema": {"properties": schema["properties"], "type": "object"}}
    missed = usage(anthropic_client, system=system(), tools=[reordered])
    assert missed.cache_read_input_tokens == 0
