"""The cache simulators' shortcuts give what their definitions give (one encoding per block)."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from tests.fakes.cache import anthropic_blocks, openai_units
from tests.fakes.tokens import (
    as_sent_json,
    canonical_json,
    chain_hash,
    count_tokens,
    count_tokens_of_sent,
)

# keys out of order, nested, unicode (raw, not escaped), numbers, null
VALUES: list[Any] = [
    {"type": "text", "text": 'héllo ✓ \u2028 "quoted"'},
    {"z": 1, "a": [1.5, None, {"y": True, "b": "x"}], "m": {"q": -2, "c": []}},
    "a plain string counts as itself",
    ["tool", {"name": "é", "input": {}}],
]


def _defined_count(value: Any) -> int:
    """ceil(len(canonical JSON) / 4), a string as itself: the count's definition."""
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    )
    return math.ceil(len(text) / 4)


def _defined_hash(previous: str, item: Any) -> str:
    """sha256 of the previous hash, a NUL and the item as sent: the chain's definition."""
    sent = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(previous.encode() + b"\x00" + sent.encode()).hexdigest()


def test_a_count_from_the_sent_text_is_the_canonical_count() -> None:
    for value in VALUES:
        assert count_tokens(value) == _defined_count(value)
        assert count_tokens_of_sent(value, as_sent_json(value)) == _defined_count(value)


def test_the_chain_hash_keeps_the_keys_in_the_order_they_were_sent() -> None:
    item = {"b": 1, "a": 2}
    assert chain_hash("p", item) == _defined_hash("p", item)
    assert chain_hash("p", item) != chain_hash("p", {"a": 2, "b": 1})


def test_anthropic_blocks_are_hashed_and_counted_as_defined() -> None:
    body: dict[str, Any] = {
        "model": "m",
        "tools": [{"name": "t", "input_schema": {"type": "object"}}],
        "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "héllo"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "1", "name": "t", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "1", "content": "ok"}],
            },
        ],
    }
    current = _defined_hash("", {"model": "m", "speed": None})
    expected: list[tuple[str, int]] = []
    sections = [("tool", body["tools"][0]), ("system", {"type": "text", "text": "sys"})]
    for section, block in sections:
        current = _defined_hash(current, [section, block])
        expected.append((current, _defined_count(block)))
    current = _defined_hash(current, {"tool_choice": None, "thinking": None, "effort": None})
    messages = [
        ("user", {"type": "text", "text": "héllo"}),
        ("assistant", body["messages"][1]["content"][0]),
        ("user", body["messages"][2]["content"][0]),
    ]
    for role, block in messages:
        current = _defined_hash(current, [role, block])
        expected.append((current, _defined_count(block)))
    assert [(b.hash, b.tokens) for b in anthropic_blocks(body)] == expected


def test_openai_units_are_hashed_and_counted_as_defined() -> None:
    body: dict[str, Any] = {
        "model": "m",
        "tools": [{"type": "function", "function": {"name": "t", "parameters": {}}}],
        "messages": [{"role": "user", "content": "héllo"}],
    }
    current = _defined_hash("", {"model": "m", "key": None})
    expected = []
    for kind, item in (("tool", body["tools"][0]), ("message", body["messages"][0])):
        current = _defined_hash(current, [kind, item])
        expected.append((current, _defined_count(item)))
    assert openai_units(body) == expected


def test_the_encoders_give_what_json_dumps_gives() -> None:
    values = [*VALUES, 1e300, -0.0, 2**70, [], {}, "", True]
    for value in values:
        sent = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        assert as_sent_json(value) == sent
        canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert canonical_json(value) == canonical


def test_a_marked_message_block_is_hashed_without_its_marker() -> None:
    marker = {"type": "ephemeral"}
    plain_text = {"type": "text", "text": "a"}
    part = {"type": "text", "text": "r"}
    plain_result = {"type": "tool_result", "tool_use_id": "1", "content": [part]}
    marked_text = {**plain_text, "cache_control": marker}
    marked_result = {**plain_result, "content": [{**part, "cache_control": marker}]}

    def body(*content: dict[str, Any]) -> dict[str, Any]:
        return {"model": "m", "messages": [{"role": "user", "content": list(content)}]}

    plain = anthropic_blocks(body(plain_text, plain_result))
    marked = anthropic_blocks(body(marked_text, marked_result))
    current = _defined_hash("", {"model": "m", "speed": None})
    current = _defined_hash(current, {"tool_choice": None, "thinking": None, "effort": None})
    expected = []
    for block in (plain_text, plain_result):
        current = _defined_hash(current, ["user", block])
        expected.append((current, _defined_count(block)))
    assert [(b.hash, b.tokens) for b in plain] == expected
    assert [(b.hash, b.tokens) for b in marked] == expected
    assert [b.ttl for b in plain] == [None, None]
    assert [b.ttl for b in marked] == ["5m", "5m"]
