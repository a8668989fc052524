"""The contract between the engine and a model provider.

The engine builds a :class:`ModelRequest` from the context view and consumes the
:class:`StreamEvent` values a provider yields. Providers (``app/providers``)
implement :class:`Provider` with an official SDK; the engine never imports one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args

from lull.model import defaults
from lull.model.messages import Message, Part

ProviderName = Literal["anthropic", "openai"]
"""The API families lull speaks (``model.provider``, ``--provider``)."""
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)

Vendor = Literal[
    "anthropic",
    "openai",
    "deepseek",
    "deepseek-legacy",
    "kimi",
    "qwen",
    "vllm",
    "sglang",
    "ollama",
    "generic",
]
"""The dialect of a server (``model.vendor``): how reasoning is sent back, which limit field."""
VENDORS: tuple[Vendor, ...] = get_args(Vendor)

ToolChoice = Literal["auto", "none"]
"""Whether the model may call the tools it is offered ("none": answer in text only)."""

CacheTtl = Literal["5m", "1h"]
"""Prompt-cache lifetimes a request can ask for."""
CACHE_TTLS: tuple[CacheTtl, ...] = get_args(CacheTtl)
CacheLifetime = Literal["5m", "1h", "auto"]
"""``context.cache.ttl``: one lifetime for every marker, or ``auto``: the stable part of the
prompt on the one-hour cache when the session's pauses make it pay, the moving tail on five
minutes (``app/context/cache_lifetime.py``)."""
CACHE_LIFETIMES: tuple[CacheLifetime, ...] = get_args(CacheLifetime)
SHORT_TTL: CacheTtl = "5m"
"""The provider's default lifetime, and the moving tail's under ``auto``."""


def tail_ttl(lifetime: CacheLifetime) -> CacheTtl:
    """The lifetime of the moving tail (and of every marker, unless ``auto`` gives the stable
    part another one) for the ``context.cache.ttl`` setting."""
    return "1h" if lifetime == "1h" else SHORT_TTL


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the model is told about one tool."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ThinkingConfig:
    """Extended thinking: off, on with the provider default, or a token budget."""

    enabled: bool = False
    budget_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one model call needs, in provider-neutral form.

    ``system`` is the static system prompt (byte-identical for a session);
    ``environment`` holds dynamic facts (date, git status) sent after it.
    ``model`` names the model it is for (informational: each provider sends
    its own). ``prompt_caching`` False asks for no provider caching at all (no markers,
    no cache key); ``cache_ttl`` and ``prompt_cache_key`` tune it when on.
    ``cache_stable_ttl`` (None: ``cache_ttl`` everywhere) is the lifetime of the stable
    part: tools, system prompt, environment and the conversation through the latest user
    message; the moving tail after it keeps ``cache_ttl`` (Anthropic allows both in one
    request, the longer first).

    ``continue_final`` says the last message is a partial assistant answer the model is to
    continue (Anthropic prefill; vLLM/SGLang ``continue_final_message``); ``tool_choice``
    "none" keeps the tools defined (the cached prefix stays) but lets the model answer in
    text only. ``request_only`` counts the trailing messages that exist for this request only
    (a corrective note, a partial answer to continue): the next request does not repeat them.
    """

    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    environment: str = ""
    max_output_tokens: int = defaults.MAX_OUTPUT_TOKENS
    thinking: ThinkingConfig = field(default_factory=ThinkingConfig)
    session_id: str = ""
    model: str = ""
    prompt_caching: bool = defaults.PROMPT_CACHING
    cache_ttl: CacheTtl = SHORT_TTL
    prompt_cache_key: bool = defaults.PROMPT_CACHE_KEY
    cache_stable_ttl: CacheTtl | None = None
    continue_final: bool = False
    tool_choice: ToolChoice = "auto"
    request_only: int = 0


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one request as the provider reported it.

    ``input`` counts uncached prompt tokens only; the whole prompt is
    ``input + cache_read + cache_write``. ``cache_write_1h`` is the part of
    ``cache_write`` written with a one-hour TTL (Anthropic; billed higher).

    ``reported`` is False when the provider sent no usage at all (servers without
    ``stream_options`` support): the counts are then zeros, not facts. A sum is
    reported only when every request in it was.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cache_write_1h: int = 0
    reported: bool = True

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached + read from cache + written to cache."""
        return self.input + self.cache_read + self.cache_write

    @property
    def cache_hit_ratio(self) -> float | None:
        """The share of the prompt read from the cache, or None before any prompt."""
        whole = self.prompt_tokens
        return self.cache_read / whole if whole else None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.reasoning + other.reasoning,
            self.cache_write_1h + other.cache_write_1h,
            self.reported and other.reported,
        )

    @property
    def unknown(self) -> bool:
        """True when nothing was reported at all: zeros that must not be shown as counts."""
        return not self.reported and not (self.prompt_tokens or self.output)

    def to_dict(self) -> dict[str, int]:
        """The token counts as JSON (session files, ``--output-format json``); whether they
        were reported is said next to them (``usage_reported``).

        ``cache_write_1h`` appears only when non-zero (one-hour cache TTL in use).
        """
        shape = {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "reasoning": self.reasoning,
        }
        if self.cache_write_1h:
            shape["cache_write_1h"] = self.cache_write_1h
        return shape


StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "other"]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A fragment of answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A fragment of reasoning text."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model began a tool call (arguments still streaming)."""

    call_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Completed:
    """The response finished: the full assistant parts, usage and why it stopped."""

    parts: tuple[Part, ...]
    usage: Usage
    stop_reason: StopReason
    model: str = ""


@dataclass(frozen=True, slots=True)
class Retrying:
    """The request failed in a way worth another try; the provider waits, then sends it again.

    ``reason`` is one line saying what failed (e.g. "Anthropic rate limit reached (429
    rate_limit_error)"); ``attempt`` is the retry about to be made, of ``max_retries``.
    """

    reason: str
    wait_seconds: float
    attempt: int
    max_retries: int


StreamEvent = TextDelta | ThinkingDelta | ToolCallStarted | Retrying | Completed

ErrorKind = Literal[
    "auth",
    "permission",
    "not_found",
    "connection",
    "timeout",
    "rate_limit",
    "overloaded",
    "server",
    "bad_request",
    "prompt_too_long",
    "stream_cut",
    "empty_stream",
    "billing",
]


class ProviderError(Exception):
    """A model call failed; ``message`` is one line a user can act on."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status

    def __str__(self) -> str:
        return self.message


class Provider(Protocol):
    """A model endpoint that streams one response per request."""

    name: str
    model: str

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request`` and yield deltas, ending with one :class:`Completed`.

        Before the answer starts it may yield :class:`Retrying` for each wait before a
        retry. Raises :class:`ProviderError` for every failure (after its retries),
        never an SDK exception.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
