"""Context windows: how many tokens a model can take, and what a "too long" error tells us.

A table of known model families, matched on the model name with any provider
prefix (``openrouter/anthropic/…``) and Ollama tag (``…:7b``) removed; the first
matching prefix wins, so specific entries come before general ones. The
``model.contextWindow`` setting overrides the table.

Unknown models get :data:`DEFAULT_CONTEXT_WINDOW` (32,768 tokens). That is
deliberately conservative: every hosted model lull knows about has at least
128k, so an unknown one is most likely a local model (Ollama, LM Studio, vLLM)
whose server was started with a small context; over-estimating the window
there means a request that fails or is silently cut by the server, while
under-estimating only means compressing earlier than needed. Set
``model.contextWindow`` for the real size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_CONTEXT_WINDOW = 32_768

# (name prefix, window in tokens); first match wins.
KNOWN_WINDOWS: tuple[tuple[str, int], ...] = (
    # Anthropic
    ("claude", 200_000),
    # OpenAI
    ("gpt-5", 272_000),  # input limit (400k total incl. 128k output)
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4.5", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-oss", 131_072),
    ("chatgpt-4o", 128_000),
    ("o1-mini", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("codex-mini", 200_000),
    # DeepSeek
    ("deepseek", 128_000),
    # Qwen
    ("qwen3-coder-plus", 1_000_000),
    ("qwen3-coder-flash", 1_000_000),
    ("qwen3-coder", 262_144),
    ("qwen3-max", 262_144),
    ("qwen-max", 32_768),
    ("qwen-plus", 131_072),
    ("qwen-turbo", 1_000_000),
    ("qwen-long", 1_000_000),
    ("qwen3", 131_072),
    ("qwq", 131_072),
    ("qwen2.5-coder", 32_768),
    ("qwen2.5", 32_768),
    # Moonshot / Kimi
    ("kimi-k2-0711", 131_072),
    ("kimi-k2", 262_144),
    ("kimi-latest", 131_072),
    ("kimi", 131_072),
    ("moonshot-v1-8k", 8_192),
    ("moonshot-v1-32k", 32_768),
    ("moonshot-v1-128k", 131_072),
    # Google
    ("gemini-1.5-pro", 2_097_152),
    ("gemini", 1_048_576),
    # Common local / open-weight models
    ("llama-4", 1_048_576),
    ("llama4", 1_048_576),
    ("llama3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama3.3", 131_072),
    ("llama-3.1", 131_072),
    ("llama-3.2", 131_072),
    ("llama-3.3", 131_072),
    ("llama3", 8_192),
    ("llama-3", 8_192),
    ("codestral", 262_144),
    ("devstral", 131_072),
    ("mistral-large", 131_072),
    ("mistral-small", 131_072),
    ("mistral", 32_768),
    ("mixtral", 32_768),
    ("gemma3", 131_072),
    ("gemma-3", 131_072),
    ("gemma", 8_192),
    ("phi4", 16_384),
    ("phi-4", 16_384),
    ("glm-4.6", 200_000),
    ("glm-4.5", 131_072),
    ("glm", 131_072),
    ("granite", 131_072),
)


def normalize_model(model: str) -> str:
    """The bare model name: lower case, no provider prefix, no Ollama tag."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


def known_context_window(model: str) -> int | None:
    """The table's window for ``model``, or None when the model is not known."""
    name = normalize_model(model)
    if not name:
        return None
    for prefix, window in KNOWN_WINDOWS:
        if name.startswith(prefix):
            return window
    return None


def context_window_for(model: str, override: int | None = None) -> int:
    """Tokens ``model`` accepts: ``override`` (model.contextWindow) if set, else the table.

    Unknown models get :data:`DEFAULT_CONTEXT_WINDOW`; a non-positive override
    is ignored.
    """
    if override is not None and override > 0:
        return int(override)
    return known_context_window(model) or DEFAULT_CONTEXT_WINDOW


@dataclass(frozen=True, slots=True)
class ContextOverflow:
    """What a provider's "prompt too long" message said: the prompt size and the limit."""

    tokens: int | None
    limit: int | None


_OVERFLOW_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Anthropic: "prompt is too long: 210345 tokens > 200000 maximum"
    (re.compile(r"(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*maximum", re.I), "tokens,limit"),
    # OpenAI: "maximum context length is 8192 tokens. However, your messages resulted in 9000"
    (
        re.compile(
            r"maximum context length is (\d[\d,]*) tokens.*?resulted in (\d[\d,]*) tokens", re.I
        ),
        "limit,tokens",
    ),
    (re.compile(r"maximum context length is (\d[\d,]*) tokens", re.I), "limit"),
    # llama.cpp's llama-server: "request (4187 tokens) exceeds the available context size
    # (4096 tokens), try increasing it"
    (
        re.compile(
            r"\((\d[\d,]*) tokens\) exceeds the available context size \((\d[\d,]*) tokens", re.I
        ),
        "tokens,limit",
    ),
    # llama-cpp-python: "Requested tokens (5000) exceed context window of 4096"
    (
        re.compile(r"requested tokens \((\d[\d,]*)\) exceed context window of (\d[\d,]*)", re.I),
        "tokens,limit",
    ),
)


def parse_context_overflow(message: str) -> ContextOverflow | None:
    """Prompt size and limit from a provider's "prompt too long" text, when it names them."""
    for pattern, order in _OVERFLOW_PATTERNS:
        match = pattern.search(message)
        if match is None:
            continue
        values = {
            name: int(group.replace(",", ""))
            for name, group in zip(order.split(","), match.groups(), strict=True)
        }
        return ContextOverflow(values.get("tokens"), values.get("limit"))
    return None
