"""Neutral request -> Anthropic Messages API parameters (pure, no SDK import).

Layout of a request: tools, then the system prompt as text blocks (static
``system`` first, ``environment`` second), then the messages. Prompt-cache
markers are planned by :func:`lull.context.assemble.plan_breakpoints`: on the
conversation tail, on the previous request's tail (when the provider's lookback
would not reach it), after the static prompt and after the environment, and, with
a lifetime per block, on the latest user prompt (the stable part on the one-hour
cache, the tail on five minutes), each only if its prefix reaches the model's
minimum cacheable length (:func:`min_cacheable_tokens`).

A request that continues a partial answer (``continue_final``, a prefill) ends with that
assistant message, its trailing whitespace removed (the API rejects it). ``tool_choice``
"none" is ``{"type": "none"}``: the tools stay defined, the cached prefix with them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from lull.catalog.vision import accepts_images, provider_image_limits
from lull.context.assemble import WireBlock, plan_breakpoints
from lull.context.media import sendable_images
from lull.model.messages import Image, Message, Part, Text, Thinking, ToolCall, ToolResult
from lull.model.provider import SHORT_TTL, CacheTtl, ModelRequest, ThinkingConfig, ToolSpec

PROVIDER_NAME = "anthropic"
MIN_THINKING_BUDGET = 1024
DEFAULT_THINKING_BUDGET = 16_000
ANSWER_HEADROOM = 4096
_UNCACHEABLE = frozenset({"thinking", "redacted_thinking"})
#: Minimum cacheable prompt per model (first matching substring wins); shorter prefixes are
#: silently not cached, so no marker is spent on them. Source: Anthropic prompt-caching docs.
MIN_CACHEABLE_TOKENS: tuple[tuple[str, int], ...] = (
    ("opus-5", 512), ("sonnet-5-5", 512), ("haiku-5-5", 512), ("fable", 512), ("mythos-5", 512),
    ("opus-4-7", 2048), ("mythos-preview", 2048), ("haiku-3-5", 2048),
    ("3-5-haiku", 2048),
    ("opus-4-6", 4096), ("opus-4-5", 4096), ("haiku-4-5", 4096),
)  # fmt: skip
DEFAULT_MIN_CACHEABLE_TOKENS = 1024
CHARS_PER_TOKEN = 4


def sendable(messages: Sequence[Message], model: str) -> Sequence[Message]:
    """``messages`` with the images ``model`` cannot take here replaced by a line saying so."""
    return sendable_images(
        messages, model, accepts_images(model), provider_image_limits(PROVIDER_NAME)
    )


def build_params(request: ModelRequest, model: str) -> dict[str, Any]:
    """The keyword arguments for ``messages.create`` (without ``stream``)."""
    thinking, max_tokens = thinking_param(request.thinking, request.max_output_tokens)
    params: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    system = system_blocks(request.system, request.environment)
    tools = tool_params(request.tools)
    messages = message_params(sendable(request.messages, model))
    if request.continue_final:
        _strip_final_whitespace(messages)
    if request.prompt_caching:
        add_cache_markers(
            tools,
            system,
            messages,
            min_tokens=min_cacheable_tokens(model),
            ttl=request.cache_ttl,
            stable_ttl=request.cache_stable_ttl,
            has_environment=bool(request.environment),
            shared_blocks=_shared_blocks(request),
        )
    if system:
        params["system"] = system
    if tools:
        params["tools"] = tools
        if request.tool_choice == "none":
            params["tool_choice"] = {"type": "none"}
    if thinking is not None:
        params["thinking"] = thinking
    params["messages"] = messages
    return params


def _shared_blocks(request: ModelRequest) -> int | None:
    """How many leading message blocks the next request repeats (None: all): the trailing
    ``request_only`` messages (a note, a partial answer) never end the stable part."""
    if not request.request_only:
        return None
    shared = request.messages[: len(request.messages) - request.request_only]
    return sum(len(m["content"]) for m in message_params(shared))


def _strip_final_whitespace(messages: list[dict[str, Any]]) -> None:
    """A prefill may not end with whitespace: strip the final assistant text block's tail."""
    if messages and messages[-1]["role"] == "assistant":
        messages[-1]["content"] = prefill_content(messages[-1]["content"])


def prefill_content(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A final assistant message's blocks as a prefill: the last text block without trailing
    whitespace (a new list; ``content`` is not changed)."""
    if not content or content[-1]["type"] != "text":
        return content
    return [*content[:-1], {**content[-1], "text": content[-1]["text"].rstrip()}]


def system_blocks(system: str, environment: str) -> list[dict[str, Any]]:
    """The system prompt as text blocks: the static part first, the dynamic facts second."""
    return [{"type": "text", "text": text} for text in (system, environment) if text]


def tool_params(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tool definitions in the order given (the caller keeps it deterministic)."""
    return [
        {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
        for t in tools
    ]


def thinking_param(config: ThinkingConfig, max_tokens: int) -> tuple[dict[str, Any] | None, int]:
    """The ``thinking`` parameter and the ``max_tokens`` to send with it.

    The budget must be at least 1024 and below ``max_tokens``; when an explicit
    budget does not fit, ``max_tokens`` is raised to leave room for the answer.
    """
    if not config.enabled:
        return None, max_tokens
    budget = config.budget_tokens
    if budget is None:
        budget = min(DEFAULT_THINKING_BUDGET, max_tokens // 2)
    budget = max(MIN_THINKING_BUDGET, budget)
    if budget >= max_tokens:
        max_tokens = budget + ANSWER_HEADROOM
    return {"type": "enabled", "budget_tokens": budget}, max_tokens


def message_params(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages as wire dicts; consecutive same-role messages are merged into one.

    Messages left without any block (e.g. only another provider's thinking)
    are dropped. In a user message tool results always come first.
    """
    return [
        {"role": group.role, "content": group.content}
        for group in message_groups(messages, message_blocks)
    ]


@dataclass(slots=True)  # not frozen: a frozen dataclass is slow to make, and 8,000 are made
class MessageGroup:
    """One wire message: consecutive same-role neutral ``members`` and their blocks."""

    role: str
    members: tuple[Message, ...]
    content: list[dict[str, Any]]
    end: int = 0  # index (in the messages grouped) after its last member


def message_groups(
    messages: Sequence[Message], blocks_of: Callable[[Message], list[dict[str, Any]]]
) -> list[MessageGroup]:
    """The wire messages of ``messages`` (see :func:`message_params`); ``blocks_of`` gives a
    message's blocks (the caller may cache them: they are never changed here)."""
    groups: list[MessageGroup] = []
    role = ""
    members: list[Message] = []
    content: list[dict[str, Any]] = []
    end = 0
    for index, message in enumerate(messages):
        blocks = blocks_of(message)
        if not blocks:
            continue
        if message.role == role:
            members.append(message)
            content.extend(blocks)
        else:
            if members:
                groups.append(_group(role, members, content, end))
            role, members, content = message.role, [message], list(blocks)
        end = index + 1
    if members:
        groups.append(_group(role, members, content, end))
    return groups


def _group(
    role: str, members: list[Message], content: list[dict[str, Any]], end: int
) -> MessageGroup:
    if role == "user" and len(content) > 1:
        content = [b for b in content if b["type"] == "tool_result"] + [
            b for b in content if b["type"] != "tool_result"
        ]
    return MessageGroup(role, tuple(members), content, end)


def message_blocks(message: Message) -> list[dict[str, Any]]:
    """One message's blocks (thinking only for this provider's own assistant messages)."""
    return _blocks(message)


def _blocks(message: Message) -> list[dict[str, Any]]:
    keep_thinking = message.role == "assistant" and message.provider == PROVIDER_NAME
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        block = _block(part, keep_thinking)
        if block is not None:
            blocks.append(block)
    return blocks


def _block(part: Part, keep_thinking: bool) -> dict[str, Any] | None:
    # isinstance, most common parts first (not ``match``): a resume makes 10^4 of these
    if isinstance(part, Text):
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, ToolResult):
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": part.call_id,
            "content": part.content,
        }
        if part.is_error:
            block["is_error"] = True
        return block
    if isinstance(part, ToolCall):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": dict(part.arguments)}
    if isinstance(part, Thinking):
        if not keep_thinking or not part.signature:
            return None
        if part.redacted:
            return {"type": "redacted_thinking", "data": part.signature}
        return {"type": "thinking", "thinking": part.text, "signature": part.signature}
    if isinstance(part, Image):
        source = {"type": "base64", "media_type": part.media_type, "data": part.data}
        return {"type": "image", "source": source}
    assert_never(part)


def min_cacheable_tokens(model: str) -> int:
    """The shortest prompt ``model`` caches (tokens); unknown models get the common 1024."""
    name = model.lower()
    return next(
        (tokens for key, tokens in MIN_CACHEABLE_TOKENS if key in name),
        DEFAULT_MIN_CACHEABLE_TOKENS,
    )


def add_cache_markers(
    tools: list[dict[str, Any]],
    system: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    *,
    min_tokens: int = DEFAULT_MIN_CACHEABLE_TOKENS,
    ttl: CacheTtl = SHORT_TTL,
    stable_ttl: CacheTtl | None = None,
    has_environment: bool = False,
    shared_blocks: int | None = None,
) -> int:
    """Put ``cache_control`` markers in place; returns how many were set (at most 4).

    ``has_environment`` says the last system block is the environment (not the
    static prompt); ``stable_ttl`` gives the stable part its own lifetime (see
    :func:`~lull.context.assemble.plan_breakpoints`); ``shared_blocks`` (None: all) is how
    many leading message blocks are not for this request only (only they may end the stable
    part). Thinking blocks never get a marker.
    """
    points = plan_cache_markers(
        tools,
        system,
        messages,
        min_tokens=min_tokens,
        ttl=ttl,
        stable_ttl=stable_ttl,
        has_environment=has_environment,
        shared_blocks=shared_blocks,
    )
    dicts: list[dict[str, Any]] = [*tools, *system]
    dicts += [block for message in messages for block in message["content"]]
    for index, marker in points:
        dicts[index]["cache_control"] = marker
    return len(points)


def plan_cache_markers(
    tools: Sequence[dict[str, Any]],
    system: Sequence[dict[str, Any]],
    messages: Sequence[dict[str, Any]],
    *,
    min_tokens: int = DEFAULT_MIN_CACHEABLE_TOKENS,
    ttl: CacheTtl = SHORT_TTL,
    stable_ttl: CacheTtl | None = None,
    has_environment: bool = False,
    earlier: Iterable[dict[str, Any]] = (),
    shared_blocks: int | None = None,
) -> list[tuple[int, dict[str, str]]]:
    """Where :func:`add_cache_markers` puts its markers, without touching the blocks: (index
    in tools + system + every message's blocks, the ``cache_control`` value).

    ``earlier`` are the blocks of messages sent before ``messages`` that get no marker (a
    long conversation's settled part): they only count towards the cache minimum, as far as
    needed, and indexes skip them. ``stable_ttl`` and ``shared_blocks`` (counted over
    ``messages``) as for :func:`add_cache_markers`: the stable marker goes on the latest user
    prompt among ``messages``.
    """
    counter = _PrefixCounter(min_tokens)
    wire = [WireBlock(counter.add(t), "tools") for t in tools]
    wire += [WireBlock(counter.add(b), "system") for b in system]
    ordinal = 0
    skipped = 0
    for block in earlier:
        if counter.total >= counter.minimum:
            break
        skipped += counter.add(block)
    if skipped:  # one stand-in block that carries their tokens and never a marker
        wire.append(WireBlock(skipped, "messages", -1, "", cacheable=False))
    for number, message in enumerate(messages):
        role = message["role"]
        for block in message["content"]:
            cacheable = block["type"] not in _UNCACHEABLE
            shared = shared_blocks is None or ordinal < shared_blocks
            ordinal += 1
            prompt = shared and role == "user" and block["type"] == "text"
            wire.append(WireBlock(counter.add(block), "messages", number, role, cacheable, prompt))
    prefix_end = len(tools) + len(system) - 1
    environment_end = prefix_end if has_environment and system else None
    static_end = prefix_end - 1 if environment_end is not None else prefix_end
    points = plan_breakpoints(
        wire,
        static_end=static_end if static_end >= 0 else None,
        environment_end=environment_end,
        min_tokens=min_tokens,
        ttl=ttl,
        stable_ttl=stable_ttl,
    )
    shift = 1 if skipped else 0
    prefix = len(tools) + len(system)
    return [
        (point.index - shift if point.index >= prefix else point.index, _marker(point.ttl))
        for point in points
    ]


def _marker(ttl: CacheTtl) -> dict[str, str]:
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": "1h"}


class _PrefixCounter:
    """Rough token counts of wire blocks (JSON length / 4), only as far as the planner needs:
    once the prefix passes the cache minimum, later blocks count 0 (no JSON is built)."""

    def __init__(self, minimum: int) -> None:
        self.minimum = minimum
        self.total = 0

    def add(self, block: dict[str, Any]) -> int:
        """The estimate for the next block of the prefix."""
        if self.total >= self.minimum:
            return 0
        text = json.dumps(block, ensure_ascii=False, separators=(",", ":"))
        tokens = -(-len(text) // CHARS_PER_TOKEN)
        self.total += tokens
        return tokens
