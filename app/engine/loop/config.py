"""What an :class:`~lull.engine.loop.agent.Agent` is set up with (:class:`AgentConfig`, resolved
from lull.settings and flags) and the live view of the tools it offers (:class:`OfferedTools`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from lull.context.compress_plan import CompressionPolicy
from lull.context.idle import IdlePolicy
from lull.context.masking import MaskingPolicy
from lull.engine.calls.runner import ToolRunner
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.model import defaults
from lull.model.provider import CacheLifetime, ThinkingConfig, Vendor


@dataclass(frozen=True)
class AgentConfig:
    """How the agent runs turns (resolved from settings and flags).

    ``context_window`` overrides the known window of the model (None: the
    table in ``app/catalog/windows.py``); ``guardrails`` are the guards on model behaviour
    (``app/engine/guardrails/``); ``repeat_pointers`` answers a repeated read or query whose
    output the model still has with a pointer (``context.repeatPointers``); a prompt over
    ``prompt_offload_threshold`` of the window is saved to a file the model reads in parts
    (``context.promptOffloadThreshold``).
    """

    system: str
    environment: str = ""
    max_turns: int = defaults.MAX_TURNS
    max_output_tokens: int = defaults.MAX_OUTPUT_TOKENS
    thinking: ThinkingConfig = field(default_factory=ThinkingConfig)
    idle: IdlePolicy = field(default_factory=IdlePolicy)
    vendor: Vendor = "anthropic"
    prompt_caching: bool = defaults.PROMPT_CACHING
    cache_ttl: CacheLifetime = defaults.CACHE_TTL
    prompt_cache_key: bool = defaults.PROMPT_CACHE_KEY
    context_window: int | None = None
    compression: CompressionPolicy = field(default_factory=CompressionPolicy)
    tool_output_max_tokens: int = defaults.TOOL_OUTPUT_MAX_TOKENS
    media_keep: int = defaults.MEDIA_KEEP
    guardrails: GuardrailPolicy = field(default_factory=GuardrailPolicy)
    masking: MaskingPolicy = field(default_factory=MaskingPolicy)
    repeat_pointers: bool = defaults.REPEAT_POINTERS
    prompt_offload_threshold: float = defaults.PROMPT_OFFLOAD_THRESHOLD


class OfferedTools(Collection[str]):
    """The names of the tools the model is offered now, read live: tools of a source that
    comes up while a turn runs (an MCP server) count from the request that offers them."""

    def __init__(self, tools: ToolRunner) -> None:
        self._tools = tools

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._tools.registry.get(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools.registry.names())

    def __len__(self) -> int:
        return len(self._tools.registry.names())
