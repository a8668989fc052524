"""What the fake bills and shows the model: earlier thinking dropped per model, context editing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes import FakeServer, Reply
from tests.fakes.server_view import CLEARED_BY_SERVER, documented_rule, rule_label

THOUGHT = "weighing the options carefully " * 200


def _history(fake: FakeServer) -> list[dict[str, Any]]:
    """An earlier turn that thought at length, then a new question."""
    thinking = {"type": "thinking", "thinking": THOUGHT, "signature": fake.sign_thinking(THOUGHT)}
    return [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": [thinking, {"type": "text", "text": "first answer"}]},
        {"role": "user", "content": "second question"},
    ]


def _input_tokens(client: Any, model: str, messages: list[dict[str, Any]]) -> int:
    reply = client.messages.create(
        model=model,
        max_tokens=2000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=messages,
    )
    return int(reply.usage.input_tokens)


@pytest.mark.parametrize(
    ("model", "rule"),
    [
        ("claude-sonnet-4-5", "drop_earlier_turns"),
        ("claude-opus-4-1-20250805", "drop_earlier_turns"),
        ("claude-haiku-4-5", "drop_earlier_turns"),
        ("claude-sonnet-4-6", "as_sent"),
        ("claude-opus-4-5", "as_sent"),
        ("claude-sonnet-5", "as_sent"),
        ("claude-test", "as_sent"),
    ],
)
def test_the_documented_thinking_rule_per_model(model: str, rule: str) -> None:
    assert documented_rule(model) == rule


def test_earlier_thinking_is_not_billed_where_the_api_drops_it(
    fake: FakeServer, anthropic_client: Any
) -> None:
    messages = _history(fake)
    dropped = _input_tokens(anthropic_client, "claude-haiku-4-5", messages)
    kept = _input_tokens(anthropic_client, "claude-sonnet-4-6", messages)
    assert kept - dropped > 1000  # the thought is about 1,500 tokens
    fake.thinking_billing = "as_sent"
    assert _input_tokens(anthropic_client, "claude-haiku-4-5", messages) == kept
    assert "not billed" in rule_label("auto", "claude-sonnet-4-5")


def test_the_open_tool_loop_keeps_its_thinking(fake: FakeServer, anthropic_client: Any) -> None:
    thinking = {"type": "thinking", "thinking": THOUGHT, "signature": fake.sign_thinking(THOUGHT)}
    use = {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {}}
    loop = [
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": [thinking, use]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
        },
    ]
    tools = [{"name": "look", "description": "look", "input_schema": {"type": "object"}}]

    def tokens(model: str) -> int:
        reply = anthropic_client.messages.create(
            model=model,
            max_tokens=2000,
            thinking={"type": "enabled", "budget_tokens": 1024},
            messages=loop,
            tools=tools,
        )
        return int(reply.usage.input_tokens)

    assert tokens("claude-haiku-4-5") == tokens("claude-sonnet-4-6")


def _tool_turns(count: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "look around"}]
    for n in range(count):
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": "look", "input": {"n": n}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "seen " * 400}
        messages += [
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [result]},
        ]
    return messages


def test_context_editing_clears_the_oldest_tool_results_past_its_trigger(
    fake: FakeServer, anthropic_client: Any
) -> None:
    seen: list[dict[str, Any]] = []

    def remember(body: dict[str, Any]) -> Reply:
        seen.append(body)
        return Reply(text="done")

    fake.default_reply = Reply(respond=remember)
    tools = [{"name": "look", "description": "look", "input_schema": {"type": "object"}}]

    def ask() -> int:
        reply = anthropic_client.messages.create(
            model="claude-test", max_tokens=100, messages=_tool_turns(4), tools=tools
        )
        return int(reply.usage.input_tokens)

    whole = ask()
    fake.context_management = {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 1000},
                "keep": {"type": "tool_uses", "value": 1},
            }
        ]
    }
    edited = ask()
    assert edited < whole - 1000
    results = [
        block["content"]
        for message in seen[-1]["messages"]
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    cleared = [[{"type": "text", "text": CLEARED_BY_SERVER}]] * 3
    assert results[:3] == cleared and results[3] == "seen " * 400
    fake.context_management["edits"][0]["trigger"]["value"] = 100_000
    assert ask() == whole  # below the trigger nothing is cleared
