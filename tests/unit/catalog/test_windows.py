"""Context windows: the known-model table, the override, and "prompt too long" parsing."""

from __future__ import annotations

import pytest

from lull.catalog.windows import (
    DEFAULT_CONTEXT_WINDOW,
    ContextOverflow,
    context_window_for,
    known_context_window,
    parse_context_overflow,
)


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("claude-sonnet-4-5", 200_000),
        ("claude-3-5-haiku-latest", 200_000),
        ("anthropic/claude-opus-4-1", 200_000),
        ("gpt-4o-mini", 128_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4", 8_192),
        ("gpt-5.5", 272_000),
        ("o3-mini", 200_000),
        ("deepseek-chat", 128_000),
        ("deepseek-reasoner", 128_000),
        ("qwen3-coder-plus", 1_000_000),
        ("qwen3-coder:30b", 262_144),
        ("qwen2.5-coder:7b", 32_768),
        ("kimi-k2-thinking", 262_144),
        ("moonshot-v1-8k", 8_192),
        ("llama3.1:8b", 131_072),
        ("llama3:8b", 8_192),
        ("openrouter/mistralai/mistral-large", 131_072),
    ],
)
def test_known_models_get_their_window(model: str, window: int) -> None:
    assert context_window_for(model) == window


def test_unknown_models_get_the_conservative_default() -> None:
    assert known_context_window("my-finetune-v2") is None
    assert context_window_for("my-finetune-v2") == DEFAULT_CONTEXT_WINDOW == 32_768
    assert context_window_for("") == DEFAULT_CONTEXT_WINDOW


def test_the_setting_overrides_the_table() -> None:
    assert context_window_for("claude-sonnet-4-5", 50_000) == 50_000
    assert context_window_for("my-local-model", 4096) == 4096
    assert context_window_for("claude-sonnet-4-5", 0) == 200_000  # not a usable override


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "the prompt is too long for model 'claude-x' (400 invalid_request_error: prompt is "
            "too long: 210345 tokens > 200000 maximum). Compress the context",
            ContextOverflow(210_345, 200_000),
        ),
        (
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9000 tokens. Please reduce the length of the messages.",
            ContextOverflow(9000, 8192),
        ),
        ("maximum context length is 32,768 tokens", ContextOverflow(None, 32_768)),
        (  # llama.cpp's llama-server
            "request (4187 tokens) exceeds the available context size (4096 tokens), try "
            "increasing it",
            ContextOverflow(4187, 4096),
        ),
        (  # llama-cpp-python
            "Requested tokens (5000) exceed context window of 4096",
            ContextOverflow(5000, 4096),
        ),
    ],
)
def test_overflow_messages_name_size_and_limit(message: str, expected: ContextOverflow) -> None:
    assert parse_context_overflow(message) == expected


def test_an_overflow_message_without_numbers_gives_none() -> None:
    assert parse_context_overflow("input is too long for the model") is None
