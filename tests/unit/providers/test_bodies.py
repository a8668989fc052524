"""Request bodies encoded once per message: the same JSON as the wire modules' parameters,
and a request costs what is new."""

from __future__ import annotations

import gc
import json
from dataclasses import replace
from typing import Any

import pytest

from lull.model.messages import Message, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import ModelRequest, ThinkingConfig, ToolSpec
from lull.model.text import wire_safe
from lull.providers import anthropic_wire, openai_wire
from lull.providers.bodies import MANY_NEW, AnthropicBody, Fragments, OpenAIBody, with_messages

MODEL = "claude-sonnet-4-5"
TOOLS = [ToolSpec("read_file", "Read a file. " * 40, {"type": "object", "properties": {}})]


def conversation(steps: int) -> list[Message]:
    """A tool loop: prompt, call (with thinking), result, answer; with a stray surrogate."""
    messages: list[Message] = []
    for step in range(steps):
        messages += [
            Message("user", (Text(f"step {step}: read the file \udcff"),)),
            Message(
                "assistant",
                (
                    Thinking(f"thinking {step}", signature=f"sig{step}"),
                    Text(f"reading {step}"),
                    ToolCall(f"c{step}", "read_file", {"path": f"f{step}.py"}),
                ),
                origin="model",
                provider="anthropic",
            ),
            Message("user", (ToolResult(f"c{step}", "read_file", "x = 1\n" * (50 + step)),)),
        ]
    return messages


def request(messages: list[Message], **changes: Any) -> ModelRequest:
    base = ModelRequest(
        system="You are lull. " * 300,
        environment="workspace: /tmp/w",
        messages=tuple(messages),
        tools=TOOLS,
        max_output_tokens=8192,
        thinking=ThinkingConfig(enabled=True, budget_tokens=2048),
        session_id="s1",
        model=MODEL,
    )
    return replace(base, **changes)


def anthropic_reference(req: ModelRequest) -> dict[str, Any]:
    params = wire_safe(anthropic_wire.build_params(req, MODEL))
    messages = params.pop("messages")
    return {**params, "stream": True, "messages": messages}


def openai_reference(req: ModelRequest, vendor: str) -> dict[str, Any]:
    params = wire_safe(openai_wire.build_params(req, "gpt-5", vendor))  # type: ignore[arg-type]
    messages = params.pop("messages")
    extra = params.pop("extra_body", {})  # the SDK merges it into the body
    return {**params, **extra, "messages": messages}


@pytest.mark.parametrize("caching", [True, False])
def test_anthropic_bodies_are_the_reference_parameters_request_after_request(
    caching: bool,
) -> None:
    body = AnthropicBody(MODEL)
    messages = conversation(12)
    for end in range(1, len(messages) + 1):
        req = request(messages[:end], prompt_caching=caching, cache_ttl="1h")
        encoded = body.encode(req)
        assert json.loads(encoded) == anthropic_reference(req)
        assert list(json.loads(encoded)) == list(anthropic_reference(req))  # key order too
    if caching:
        assert b'"cache_control":{"type":"ephemeral","ttl":"1h"}' in encoded


@pytest.mark.parametrize("vendor", ["openai", "deepseek", "kimi"])
def test_openai_bodies_are_the_reference_parameters_request_after_request(vendor: str) -> None:
    body = OpenAIBody("gpt-5", vendor)  # type: ignore[arg-type]
    messages = conversation(10)
    for end in range(1, len(messages) + 1):
        req = request(messages[:end])
        assert json.loads(body.encode(req)) == openai_reference(req, vendor)


def partial_answer(messages: list[Message]) -> list[Message]:
    """``messages`` and a partial answer (with trailing whitespace) being continued."""
    return [*messages, Message("assistant", (Text("The answer so far  \n"),), origin="model")]


@pytest.mark.parametrize("caching", [True, False])
def test_anthropic_prefill_and_tool_choice_none_are_the_reference_parameters(
    caching: bool,
) -> None:
    body = AnthropicBody(MODEL)
    messages = partial_answer(conversation(12))
    for req in (
        request(messages, prompt_caching=caching, continue_final=True, request_only=1),
        request(messages[:-1], prompt_caching=caching, tool_choice="none"),
        request(messages, prompt_caching=caching, continue_final=True, request_only=1),
    ):
        encoded = json.loads(body.encode(req))
        assert encoded == anthropic_reference(req)
    assert encoded["messages"][-1]["content"][-1]["text"] == "The answer so far"
    assert messages[-1].parts == (Text("The answer so far  \n"),)  # kept as it was


@pytest.mark.parametrize("vendor", ["vllm", "sglang", "openai"])
def test_openai_continue_final_message_is_merged_into_the_body(vendor: str) -> None:
    body = OpenAIBody("gpt-5", vendor)  # type: ignore[arg-type]
    req = request(partial_answer(conversation(3)), continue_final=True, tool_choice="none")
    encoded = json.loads(body.encode(req))
    assert encoded == openai_reference(req, vendor)
    assert "extra_body" not in encoded and encoded["tool_choice"] == "none"
    assert ("continue_final_message" in encoded) == (vendor != "openai")


def test_each_message_is_encoded_once() -> None:
    body = OpenAIBody("gpt-5", "openai")
    messages = conversation(50)
    body.encode(request(messages[:-1]))
    before = body.fragments.encoded
    body.encode(request(messages))
    assert body.fragments.encoded == before + 1  # only the new message


def test_anthropic_re_encodes_only_the_tail_the_markers_move_on() -> None:
    body = AnthropicBody(MODEL)
    messages = conversation(50)
    body.encode(request(messages[:-3]))
    before = body.fragments.encoded
    body.encode(request(messages))
    # the new wire messages, and the old tail that lost (or the one that got) a marker
    assert body.fragments.encoded - before <= 5


def test_a_cleared_result_rebuilt_with_equal_parts_is_not_encoded_again() -> None:
    body = OpenAIBody("gpt-5", "openai")
    messages = conversation(5)
    body.encode(request(messages))
    before = body.fragments.encoded
    rebuilt = [m.replace_parts(tuple(replace(p) for p in m.parts)) for m in messages]  # equal
    assert json.loads(body.encode(request(rebuilt))) == openai_reference(request(rebuilt), "openai")
    assert body.fragments.encoded == before


def test_a_changed_message_is_encoded_anew() -> None:
    body = OpenAIBody("gpt-5", "openai")
    messages = conversation(3)
    body.encode(request(messages))
    cleared = messages[2].replace_parts((ToolResult("c0", "read_file", "[cleared]"),))
    changed = [*messages[:2], cleared, *messages[3:]]
    assert b"[cleared]" in body.encode(request(changed))


def test_lone_surrogates_become_replacement_characters() -> None:
    encoded = OpenAIBody("gpt-5", "openai").encode(request(conversation(1)))
    assert "\ufffd".encode() in encoded
    encoded.decode("utf-8")  # strict UTF-8: no surrogate escaped through


def test_fragments_keep_only_what_the_last_request_used() -> None:
    fragments = Fragments()
    parts = (Text("a"),)
    assert fragments.get("m1", parts, None, lambda: b"1") == b"1"
    fragments.done()
    assert fragments.get("m1", parts, None, lambda: b"new") == b"1"
    fragments.done()
    fragments.done()  # a request without m1
    assert fragments.get("m1", parts, None, lambda: b"new") == b"new"


def test_with_messages_puts_messages_last() -> None:
    assert json.loads(with_messages({"model": "m"}, [b'{"a":1}', b"", b'{"b":2}'])) == {
        "model": "m",
        "messages": [{"a": 1}, {"b": 2}],
    }
    assert json.loads(with_messages({}, [])) == {"messages": []}


def _edited(messages: list[Message], at: int) -> list[Message]:
    """``messages`` with the tool result at ``at`` cleared (as an idle cleanup would)."""
    result = messages[at].tool_results[0]
    cleared = ToolResult(result.call_id, result.name, "[Old tool result content cleared]")
    return [*messages[:at], messages[at].replace_parts((cleared,)), *messages[at + 1 :]]


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_long_conversation_stays_exact_across_growth_and_edits(wire: str) -> None:
    body: AnthropicBody | OpenAIBody = (
        AnthropicBody(MODEL) if wire == "anthropic" else OpenAIBody("gpt-5", "deepseek")
    )

    def reference(req: ModelRequest) -> dict[str, Any]:
        if wire == "anthropic":
            return anthropic_reference(req)
        return openai_reference(req, "deepseek")

    messages = conversation(40)  # 120 messages: most of them settled
    steps = [messages[:90], messages[:91], messages[:100], messages]
    steps += [_edited(messages, 5), _edited(_edited(messages, 5), 110), messages[:60]]
    for step in steps:
        req = request(step, cache_ttl="5m")
        assert json.loads(body.encode(req)) == reference(req)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_body_of_many_new_messages_is_built_without_collections(wire: str) -> None:
    """The first request after a resume: its wire blocks live on, so no collection walks
    them while they are made, and they are frozen afterwards; the body stays exact."""
    body: AnthropicBody | OpenAIBody = (
        AnthropicBody(MODEL) if wire == "anthropic" else OpenAIBody("gpt-5", "deepseek")
    )
    collecting: list[bool] = []
    build = body._encode

    def spy(req: ModelRequest) -> bytes:
        collecting.append(gc.isenabled())
        return build(req)

    body._encode = spy  # type: ignore[method-assign]
    messages = conversation(MANY_NEW // 3 + 1)
    req = request(messages, cache_ttl="5m")
    reference = (
        anthropic_reference(req) if wire == "anthropic" else openai_reference(req, "deepseek")
    )
    assert json.loads(body.encode(req)) == reference
    assert collecting == [False] and gc.isenabled()
    if isinstance(body, AnthropicBody):
        kept = body._groups[0].content
        assert not any(o is kept for o in gc.get_objects())  # frozen: never walked again
    body.encode(request(messages + conversation(1), cache_ttl="5m"))  # three new messages
    assert collecting == [False, True]
