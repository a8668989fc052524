"""Checking a request from where it differs from an accepted one gives the verdict checking
it whole gives: every fault after, at or across the repeated messages is still found."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.anthropic_accepted import AcceptedPrefixes
from tests.fakes.anthropic_validate import validate_anthropic
from tests.fakes.errors import WireError
from tests.fakes.request_text import parse_request
from tests.fakes.signing import Signer

SIGNER = Signer(b"secret")
CC = {"type": "ephemeral"}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_turn(call_id: str, thinking: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if thinking is not None:
        signature = SIGNER.sign_thinking(thinking)
        content.append({"type": "thinking", "thinking": thinking, "signature": signature})
    content.append({"type": "tool_use", "id": call_id, "name": "read", "input": {"p": "a"}})
    return {"role": "assistant", "content": content}


def result_turn(call_id: str, text: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": call_id, "content": "x"}
    ]
    if text is not None:
        content.append({"type": "text", "text": text})
    return {"role": "user", "content": content}


def marked(message: dict[str, Any]) -> dict[str, Any]:
    content = [*message["content"][:-1], {**message["content"][-1], "cache_control": CC}]
    return {**message, "content": content}


def conversation(steps: int) -> list[dict[str, Any]]:
    messages = [user("start")]
    for n in range(steps):
        messages += [tool_turn(f"t{n}", thinking=f"plan {n}"), result_turn(f"t{n}")]
    return messages


def verdict(messages: list[dict[str, Any]], accepted: AcceptedPrefixes | None) -> str:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": messages}
    parsed = parse_request(json.dumps(body).encode())
    assert parsed is not None
    try:
        validate_anthropic(parsed[0], SIGNER, parsed[1], accepted)
    except WireError as error:
        return error.message
    return "accepted"


def after_accepting(accepted_first: list[dict[str, Any]], then: list[dict[str, Any]]) -> str:
    accepted = AcceptedPrefixes()
    assert verdict(accepted_first, accepted) == "accepted"
    resumed = accepted.resume(then, [json.dumps(m) for m in then])
    assert resumed is not None and resumed.start > 0  # checked from where it differs
    return verdict(then, accepted)


def test_every_fault_is_found_as_when_checked_whole() -> None:
    base = conversation(4)
    forged = {**tool_turn("t9", thinking="plan 9")}
    forged["content"][0] = {**forged["content"][0], "thinking": "changed"}
    cases: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = [
        (base, [*base, user("fine")]),  # a clean extension
        (base, [*base, result_turn("t3")]),  # a duplicate result at the boundary
        (base, [*base, tool_turn("t1"), result_turn("t1")]),  # a tool use id used before
        (base, [*base[:-1], result_turn("t2")]),  # the last message changed
        (base, [*base[:3], result_turn("zz"), *base[4:]]),  # a message in the middle changed
        (base, [*base, forged, result_turn("t9")]),  # a modified thinking block
        (
            [*base, {"role": "assistant", "content": []}],
            [*base, {"role": "assistant", "content": []}, user("go on")],
        ),  # an empty final assistant message, no longer the last
        ([*base, assistant("x")], [*base, assistant("x"), user("go on")]),  # a prefill, then not
        (base, [*base, tool_turn("t8")]),  # an unanswered tool use at the end
        (base, [*base, tool_turn("t8"), user("never mind")]),
        (base, [*base, assistant("prefill")]),  # a prefill
        (
            [marked(base[0]), marked(base[1]), marked(base[2]), *base[3:]],
            [marked(base[0]), marked(base[1]), marked(base[2]), *base[3:], marked(user("go"))],
        ),  # a fourth marker is fine
        (
            [marked(base[0]), marked(base[1]), marked(base[2]), *base[3:]],
            [
                marked(base[0]),
                marked(base[1]),
                marked(base[2]),
                marked(base[3]),
                marked(user("go")),
            ],
        ),  # a fifth is not
    ]
    for first, then in cases:
        assert after_accepting(first, then) == verdict(then, None), then
    assert verdict([*base, result_turn("t3")], None) != "accepted"


def test_only_an_accepted_request_is_kept() -> None:
    accepted = AcceptedPrefixes()
    base = conversation(3)
    assert verdict([*base, result_turn("t0")], accepted) != "accepted"
    assert accepted.resume(base, [json.dumps(m) for m in base]) is None
    assert verdict(base, accepted) == "accepted"
    resumed = accepted.resume(base, [json.dumps(m) for m in base])
    assert resumed is not None and resumed.start == len(base) - 1
