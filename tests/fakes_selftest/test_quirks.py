"""The fake's real-server quirks, as the openai SDK sees them (reference/real-servers.md)."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.fakes import FakeServer, Reply, ServerQuirks
from tests.fakes.__main__ import parse_args
from tests.fakes.quirks import NULL_CONTENT_MESSAGE
from tests.fakes_selftest.conftest import GPT, error_text, user

CALL = {"id": "call_1", "type": "function", "function": {"name": "glob", "arguments": "{}"}}
TOOLS = [{"type": "function", "function": {"name": "glob", "parameters": {"type": "object"}}}]


def streamed(client: Any, **extra: Any) -> list[Any]:
    """Every chunk of a streamed completion that asks for usage."""
    params = {"model": GPT, "stream": True, "stream_options": {"include_usage": True}}
    if "messages" not in extra:
        params["messages"] = [user("hi")]
    return list(client.chat.completions.create(**params, **extra))


def test_quirks_are_off_by_default(fake: FakeServer, openai_client: Any) -> None:
    assert fake.quirks == ServerQuirks()
    chunks = streamed(openai_client)
    assert chunks[-1].usage is not None and chunks[-1].usage.prompt_tokens > 0


def test_no_usage_in_streams(fake: FakeServer, openai_client: Any) -> None:
    fake.quirks.stream_usage = False
    chunks = streamed(openai_client)
    assert all(getattr(chunk, "usage", None) is None for chunk in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"
    answer = openai_client.chat.completions.create(model=GPT, messages=[user("hi")])
    assert answer.usage.prompt_tokens > 0  # non-streamed answers still carry it


def test_empty_200_stream_on_overflow(fake: FakeServer, openai_client: Any) -> None:
    fake.quirks.empty_stream_on_overflow = True
    fake.max_context_tokens = 20
    fake.script(Reply(text="kept for later"))
    long = [user("a question " * 50)]
    assert streamed(openai_client, messages=long) == []
    assert (fake.journal[-1].status, fake.journal[-1].error) == (
        200,
        "context overflow: an empty 200 stream",
    )
    with pytest.raises(openai.BadRequestError) as info:  # non-streamed: the real 400
        openai_client.chat.completions.create(model=GPT, messages=long)
    assert "maximum context length is 20 tokens" in error_text(info.value)
    assert fake.pending_replies == 1  # the scripted reply was not spent


def test_null_assistant_content_is_a_500(fake: FakeServer, openai_client: Any) -> None:
    fake.quirks.reject_null_content = True
    history = [
        user("go"),
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
    ]
    with pytest.raises(openai.InternalServerError) as info:
        openai_client.chat.completions.create(model=GPT, messages=history, tools=TOOLS)
    assert error_text(info.value) == NULL_CONTENT_MESSAGE
    history[1]["content"] = ""
    answer = openai_client.chat.completions.create(model=GPT, messages=history, tools=TOOLS)
    assert answer.choices[0].finish_reason == "stop"


def test_vllm_rejects_max_tokens_beyond_the_window(fake: FakeServer, openai_client: Any) -> None:
    fake.quirks = ServerQuirks.vllm()
    fake.max_context_tokens = 100
    with pytest.raises(openai.BadRequestError) as info:
        openai_client.chat.completions.create(model=GPT, messages=[user("hi")], max_tokens=8192)
    assert "in the completion" in error_text(info.value)
    fine = openai_client.chat.completions.create(model=GPT, messages=[user("hi")], max_tokens=50)
    assert fine.choices[0].message.content


def test_llama_cpp_python_preset_and_command_line() -> None:
    assert ServerQuirks.llama_cpp_python() == ServerQuirks(
        stream_usage=False, empty_stream_on_overflow=True, reject_null_content=True
    )
    args = parse_args(["--imitate", "llama-cpp-python", "--context", "2048"])
    assert (args.imitate, args.context) == ("llama-cpp-python", 2048)
