"""A body parsed with each message's text gives what ``json.loads`` gives, and the cache
simulators' per-message memo gives what working everything out again gives."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.cache import PrefixMemo, anthropic_blocks, openai_units
from tests.fakes.request_text import RecentMessages, parse_request

MESSAGES: list[Any] = [
    {"role": "user", "content": 'héllo ✓ \u2028 "quoted" \\ \U0001f600'},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "n: 1.5e300 -0.0", "n": [1, True]}]},
]


def _texts(messages: list[Any], separator: str = ",") -> str:
    return separator.join(json.dumps(m, ensure_ascii=False) for m in messages)


def test_the_body_and_each_messages_text_are_what_was_sent() -> None:
    bodies = [
        '{"model":"m","messages":[' + _texts(MESSAGES) + '],"stream":true}',
        ' {\n "messages" : [ ' + _texts(MESSAGES, " ,\n ") + ' ] , "max_tokens" : 5 }\n',
        '{"messages":[],"model":"m"}',
        '{"model":"m","messages":[' + json.dumps(MESSAGES[0]) + "]}",  # \\u escapes
        '{"messages":[{"role":"user","content":"lone \\udc80"}]}',
    ]
    for text in bodies:
        parsed = parse_request(text.encode())
        assert parsed is not None, text
        body, texts = parsed
        assert body == json.loads(text)
        assert [json.loads(t) for t in texts] == body["messages"]
        assert all(t in text for t in texts)


def test_anything_unusual_is_left_to_json_loads() -> None:
    unusual = [
        b"[1, 2]",
        b'{"model": "m"}',  # no messages
        b'{"messages": [], "messages": []}',  # repeated
        b'{"messages": [1,]}',
        b'{"messages": [1]} trailing',
        b'{"messages": [1]',
        b'{"messages": "a"}',
        b"\xff\xfe{}",
        b"",
    ]
    for raw in unusual:
        assert parse_request(raw) is None, raw


def _conversation(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"step {n}"}]})
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"done {n}"}]})
    return messages


def _with_texts(body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    parsed = parse_request(json.dumps(body, ensure_ascii=False).encode())
    assert parsed is not None
    return parsed


def test_the_memo_gives_what_working_it_all_out_again_gives() -> None:
    memo = PrefixMemo()
    marker = {"type": "ephemeral"}
    history = _conversation(6)
    reordered = {"role": "user", "content": [{"text": "step 2", "type": "text"}]}
    retyped = {"role": "assistant", "content": [{"type": "text", "text": "done 1", "n": 1}]}
    retyped_bool = {**retyped, "content": [{**retyped["content"][0], "n": True}]}
    requests = [
        history[:4],
        history[:6],  # grown
        [
            *history[:5],
            {**history[5], "content": [{**history[5]["content"][0], "cache_control": marker}]},
        ],
        [*history[:4], reordered, *history[5:]],  # the same values, keys in another order
        [*history[:3], retyped, *history[4:]],
        [*history[:3], retyped_bool, *history[4:]],  # 1 == True, but it is other text
        history,
    ]
    for messages in requests:
        body, texts = _with_texts({"model": "m", "system": "s", "messages": messages})
        remembered = anthropic_blocks(body, texts, memo)
        assert remembered == anthropic_blocks(body)
        units = openai_units(body, texts, memo)
        assert units == openai_units(body)
    hashes = {}
    for messages in requests[3:6]:
        body, texts = _with_texts({"model": "m", "messages": messages})
        hashes[json.dumps(messages)] = anthropic_blocks(body, texts, memo)[-1].hash
    assert len(set(hashes.values())) == 3  # reordered, 1 and true are three prefixes


def test_a_memo_forgets_everything_past_its_limit() -> None:
    memo = PrefixMemo(limit=3)
    for n in range(5):
        body, texts = _with_texts({"model": "m", "messages": _conversation(n + 1)})
        assert anthropic_blocks(body, texts, memo) == anthropic_blocks(body)
    assert len(memo._results) <= 3


def test_a_repeated_message_takes_the_value_parsed_before() -> None:
    recent = RecentMessages()
    history = _conversation(3)
    first = {"model": "m", "messages": history}
    then = {"model": "m", "messages": [*history[:4], {"role": "user", "content": "x"}]}
    parsed_first = parse_request(json.dumps(first).encode(), recent)
    parsed_then = parse_request(json.dumps(then).encode(), recent)
    assert parsed_first is not None and parsed_then is not None
    assert parsed_first[0] == first and parsed_then[0] == then
    pairs = zip(parsed_first[0]["messages"], parsed_then[0]["messages"], strict=False)
    shared = [a is b for a, b in pairs]
    assert shared == [True, True, True, True, False]
    assert parsed_then[1] == [json.dumps(m) for m in then["messages"]]


def test_a_text_that_only_starts_like_a_recent_one_is_parsed() -> None:
    recent = RecentMessages()
    assert parse_request(b'{"messages": [1, {"a": 1}]}', recent) is not None
    for raw in (b'{"messages": [12, {"a": 1}]}', b'{"messages": [1.5]}', b'{"messages": [1 ]}'):
        parsed = parse_request(raw, recent)
        assert parsed is not None and parsed[0] == json.loads(raw), raw
    assert parse_request(b'{"messages": [1 2]}', recent) is None
