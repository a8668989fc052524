"""The official anthropic SDK streams and parses what the fake serves."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from tests.fakes import FakeServer, Reply, ToolUse
from tests.fakes_selftest.conftest import MODEL, as_params, user


def test_text_stream_arrives_in_pieces(fake: FakeServer, anthropic_client: Any) -> None:
    fake.script(Reply(text="Hello from the fake model", chunk_size=5))
    with anthropic_client.messages.stream(
        model=MODEL, max_tokens=100, messages=[user("hi")]
    ) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert pieces == ["Hello", " from", " the ", "fake ", "model"]
    assert final.content[0].text == "Hello from the fake model"
    assert final.stop_reason == "end_turn"
    assert final.id.startswith("msg_")


async def test_async_client_and_non_streaming_json(fake: FakeServer) -> None:
    client = anthropic.AsyncAnthropic(base_url=fake.url, api_key="test", max_retries=0)
    fake.script(Reply(text="async hi"))
    message = await client.messages.create(model=MODEL, max_tokens=50, messages=[user("x")])
    assert message.content[0].text == "async hi"
    assert message.usage.output_tokens >= 1
    await client.close()


def test_default_reply_echoes_last_user_text(anthropic_client: Any) -> None:
    message = anthropic_client.messages.create(
        model=MODEL, max_tokens=50, messages=[user("what is up")]
    )
    assert message.content[0].text == "(fake) You said: what is up"


def test_respond_callable_sees_the_request(fake: FakeServer, anthropic_client: Any) -> None:
    fake.script(Reply(respond=lambda body: Reply(text=f"{len(body['messages'])} messages")))
    message = anthropic_client.messages.create(model=MODEL, max_tokens=50, messages=[user("a")])
    assert message.content[0].text == "1 messages"


def test_parallel_tool_calls_reassembled(fake: FakeServer, anthropic_client: Any) -> None:
    calls = [
        ToolUse("read_file", {"path": "src/a_rather_long_file_name.py", "limit": 200}),
        ToolUse("grep_search", {"pattern": "def main", "path": "."}, id="toolu_given"),
    ]
    fake.script(Reply(text="Looking.", tool_calls=calls))
    deltas = 0
    with anthropic_client.messages.stream(
        model=MODEL, max_tokens=100, messages=[user("go")]
    ) as stream:
        for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                deltas += 1
        final = stream.get_final_message()
    tool_uses = [b for b in final.content if b.type == "tool_use"]
    assert [t.input for t in tool_uses] == [c.arguments for c in calls]
    assert tool_uses[0].id.startswith("toolu_") and tool_uses[1].id == "toolu_given"
    assert final.stop_reason == "tool_use"
    assert deltas >= 6  # several fragments per call


def test_thinking_round_trip_accepted_and_modified_rejected(
    fake: FakeServer, anthropic_client: Any
) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    fake.script(Reply(thinking="plan: read a.py", tool_calls=[ToolUse("read_file", {"path": "a"})]))
    first = anthropic_client.messages.create(
        model=MODEL, max_tokens=2000, thinking=thinking, messages=[user("fix it")]
    )
    assert first.content[0].type == "thinking" and first.content[0].signature
    assistant = as_params(first)
    result = {"type": "tool_result", "tool_use_id": first.content[1].id, "content": "x = 1"}
    history = [user("fix it"), assistant, {"role": "user", "content": [result]}]
    fake.script(Reply(text="done"))
    second = anthropic_client.messages.create(
        model=MODEL, max_tokens=2000, thinking=thinking, messages=history
    )
    assert second.content[0].text == "done"

    assistant["content"][0]["thinking"] = "plan: something else"
    with pytest.raises(anthropic.BadRequestError, match="cannot be modified"):
        anthropic_client.messages.create(
            model=MODEL, max_tokens=2000, thinking=thinking, messages=history
        )


def test_redacted_thinking_round_trip(fake: FakeServer, anthropic_client: Any) -> None:
    fake.script(Reply(text="ok", redacted_thinking=True))
    first = anthropic_client.messages.create(model=MODEL, max_tokens=100, messages=[user("a")])
    assert first.content[0].type == "redacted_thinking"
    assistant = as_params(first)
    history = [user("a"), assistant, user("b")]
    anthropic_client.messages.create(model=MODEL, max_tokens=100, messages=history)
    assistant["content"][0]["data"] = assistant["content"][0]["data"][:-4] + "AAAA"
    with pytest.raises(anthropic.BadRequestError, match=r"messages\.1\.content\.0"):
        anthropic_client.messages.create(model=MODEL, max_tokens=100, messages=history)


def test_tool_calls_with_thinking_enabled_get_a_signed_thinking_block(
    fake: FakeServer, anthropic_client: Any
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("glob", {"pattern": "*"})]))
    message = anthropic_client.messages.create(
        model=MODEL,
        max_tokens=2000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[user("a")],
    )
    assert message.content[0].type == "thinking"
    assert message.content[0].signature == fake.sign_thinking("")


def test_max_tokens_zero_prewarms_without_consuming_script(
    fake: FakeServer, anthropic_client: Any
) -> None:
    fake.script(Reply(text="kept"))
    message = anthropic_client.messages.create(model=MODEL, max_tokens=0, messages=[user("a")])
    assert message.content == [] and message.stop_reason == "max_tokens"
    assert fake.pending_replies == 1


def test_count_tokens(anthropic_client: Any) -> None:
    count = anthropic_client.messages.count_tokens(model=MODEL, messages=[user("x" * 400)])
    assert count.input_tokens > 100


async def test_concurrent_streams_each_get_one_reply(fake: FakeServer) -> None:
    import asyncio

    client = anthropic.AsyncAnthropic(base_url=fake.url, api_key="test", max_retries=0)
    fake.script(*(Reply(text=f"reply {i} " * 5) for i in range(3)))

    async def one() -> str:
        async with client.messages.stream(
            model=MODEL, max_tokens=100, messages=[user("x")]
        ) as stream:
            return "".join([piece async for piece in stream.text_stream])

    texts = await asyncio.gather(one(), one(), one())
    assert sorted(texts) == [f"reply {i} " * 5 for i in range(3)]
    assert fake.pending_replies == 0
    await client.close()
