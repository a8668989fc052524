"""The in-process scripted provider keeps the provider contract: deltas, one Completed, errors."""

from __future__ import annotations

import pytest

from lull.model.messages import Message, Text, ToolCall, ToolResult, user_text
from lull.model.provider import (
    Completed,
    ModelRequest,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
)
from lull.providers.config import create_provider, demo_config
from lull.providers.scripted import (
    ScriptedCall,
    ScriptedProvider,
    ScriptedReply,
    demo_reply,
)


def request(*messages: Message, caching: bool = True) -> ModelRequest:
    return ModelRequest(system="sys", messages=messages, prompt_caching=caching)


async def events(provider: ScriptedProvider, req: ModelRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(req)]


async def test_replies_are_served_in_order_then_the_echo() -> None:
    provider = ScriptedProvider([ScriptedReply(text="first", thinking="why")])
    got = await events(provider, request(user_text("hi")))
    assert isinstance(got[0], ThinkingDelta) and isinstance(got[-2], TextDelta)
    done = got[-1]
    assert isinstance(done, Completed) and done.stop_reason == "end_turn"
    assert done.model == provider.model and done.usage.output > 0
    echo = (await events(provider, request(user_text("again"))))[-1]
    assert isinstance(echo, Completed)
    assert echo.parts == (Text("(scripted) You said: again"),)
    assert len(provider.requests) == 2


async def test_tool_calls_get_ids_and_stop_for_tool_use() -> None:
    provider = ScriptedProvider([ScriptedReply(tool_calls=(ScriptedCall("glob", {"p": 1}),))])
    got = await events(provider, request(user_text("find")))
    assert isinstance(got[0], ToolCallStarted) and got[0].name == "glob"
    done = got[-1]
    assert isinstance(done, Completed) and done.stop_reason == "tool_use"
    assert done.parts == (ToolCall("call_1", "glob", {"p": 1}),)


async def test_errors_and_cut_streams_are_provider_errors() -> None:
    provider = ScriptedProvider(
        [
            ScriptedReply(error=ProviderError("overloaded", "busy")),
            ScriptedReply(text="x" * 100, cut_after=2),
        ]
    )
    with pytest.raises(ProviderError) as first:
        await events(provider, request(user_text("a")))
    assert first.value.kind == "overloaded"
    seen: list[StreamEvent] = []
    with pytest.raises(ProviderError) as cut:
        async for event in provider.stream(request(user_text("b"))):
            seen.append(event)
    assert cut.value.kind == "stream_cut" and len(seen) == 2


async def test_a_growing_conversation_reads_its_prefix_from_the_cache() -> None:
    provider = ScriptedProvider()
    first = [user_text("one " * 50)]
    done = (await events(provider, request(*first)))[-1]
    assert isinstance(done, Completed)
    assert done.usage.cache_read == 0 and done.usage.cache_write > 0
    answer = Message("assistant", (Text("ok"),))
    longer = [*first, answer, user_text("two")]
    again = (await events(provider, request(*longer)))[-1]
    assert isinstance(again, Completed)
    assert again.usage.cache_read >= done.usage.cache_write  # everything sent before
    off = (await events(provider, request(*longer, caching=False)))[-1]
    assert isinstance(off, Completed)
    assert off.usage.cache_read == 0 and off.usage.input == off.usage.prompt_tokens


async def test_the_demo_lists_files_on_request() -> None:
    provider = create_provider(demo_config())
    assert isinstance(provider, ScriptedProvider) and provider.respond is demo_reply
    asked = (await events(provider, request(user_text("please list files"))))[-1]
    assert isinstance(asked, Completed)
    [call] = [p for p in asked.parts if isinstance(p, ToolCall)]
    assert call.name == "list_directory"
    result = Message("user", (ToolResult(call.id, call.name, "a.py\nb.py\n"),))
    answer = (await events(provider, request(user_text("list files"), result)))[-1]
    assert isinstance(answer, Completed)
    assert answer.parts == (Text("(demo) list_directory says:\na.py\nb.py"),)
