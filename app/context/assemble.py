"""Cache-aware request assembly, provider-neutral: prefix blocks and breakpoint planning.

A request is sent as tools -> static system prompt -> environment -> conversation. Everything
up to the conversation is byte-stable for a session (the static prompt for every session), and
the conversation only grows between context edits, so each request is the previous one plus a
few new blocks. Two jobs live here:

* :func:`prefix_blocks` cuts a :class:`ModelRequest` into hashed blocks (each tool, the system
  prompt, the environment, the settings that key the conversation cache, each message): what
  the cache-break detector compares from one request to the next.
* :func:`plan_breakpoints` chooses where the (at most four) Anthropic ``cache_control`` markers
  go, from a provider's flattened wire blocks, so that every request reads everything the
  previous request wrote:

  1. the tail: the last cacheable block (writes the whole prompt for the next request);
  2. the previous tail: the last cacheable block before the newest assistant message, which
     is exactly where the previous request's tail marker was. A marker only finds entries up
     to 20 blocks behind it, and one tool-loop step (thinking, parallel tool calls, their
     results) can add more than that, so when the new tail is :data:`SAFE_LOOKBACK` or more
     blocks past the previous one this second marker keeps the step a hit;
  3. the static part (tools + static system prompt): reused across sessions;
  4. the environment (per-session facts after the static prompt): stays cached when the
     conversation changes under a warm cache (a compression, a restore).

  With a lifetime per block (``context.cache.ttl: "auto"`` choosing the one-hour cache for
  the stable part) a fifth candidate comes first: the **stable** marker, on the latest user
  prompt (the conversation up to it changes only when the cache is cold). The stable part
  (static prompt, environment, conversation through that prompt) is then cached for one
  hour and the moving tail for five minutes; at its first request a turn writes the new
  one-hour entry for only the few tokens past the previous tail. The longer lifetime always
  comes first, as the provider requires; the environment marker is the first to go when
  there are more than four candidates.

  A marker whose prefix is shorter than the model's minimum cacheable length is dropped
  rather than wasted (the provider would silently not cache it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lull.model.messages import Message, ToolCall, ToolResult
from lull.model.provider import SHORT_TTL, CacheTtl, ModelRequest, ToolSpec
from lull.model.text import text_bytes

MAX_BREAKPOINTS = 4
#: Providers look back 20 blocks from a marker for an earlier cache entry (Anthropic); a
#: previous-tail marker is added from half that distance on, to keep a wide margin.
SAFE_LOOKBACK = 10
BlockKind = Literal["model", "tool", "system", "environment", "options", "message"]
Section = Literal["tools", "system", "messages"]
Reason = Literal["stable", "tail", "previous tail", "static", "environment"]


def _stable_encoder() -> Callable[[Any], str]:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)`` with the
    C encoder made once, not on every call (most of the cost of encoding one message; a
    resumed session's history is 8,000 of them). The same text; what it leaves out is the
    circular-reference check (what is hashed is plain data made for the hash)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str).encode
    iterencode = make(None, str, json.encoder.encode_basestring, None, ":", ",", False, False, True)

    def encode(value: Any) -> str:
        return "".join(iterencode(value, 0))

    return encode


_stable_json = _stable_encoder()


def stable_json(value: Any) -> str:
    """``value`` as compact JSON, keys in their insertion order as the SDKs send them (so a
    reordered schema, which breaks the provider's cache, changes the JSON too)."""
    return _stable_json(value)


def digest(value: Any) -> str:
    """A short content hash of ``value`` (via :func:`stable_json`)."""
    return hashlib.sha256(text_bytes(stable_json(value))).hexdigest()[:16]


# --- prefix blocks ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PrefixBlock:
    """One unit of a request's prefix: what it is, a label for people, and its content hash.

    ``source`` is the neutral object the block came from (a ToolSpec, the prompt text, the
    thinking settings or a Message), kept so a change can be described, not only detected.
    """

    kind: BlockKind
    label: str
    digest: str
    source: object
    message_id: str = ""
    call_ids: tuple[str, ...] = ()


def tool_content(spec: ToolSpec) -> dict[str, Any]:
    """What the model is told about one tool, as plain data."""
    return {"name": spec.name, "description": spec.description, "parameters": spec.parameters}


_KEY_BITS = (1 << 64) - 1


def message_key(message: Message) -> int:
    """A key of what is sent of ``message`` (role, producer, parts): equal for equal content,
    different otherwise (but for a 64-bit collision). Python's own hashes of the parts (frozen
    dataclasses; a tool call's arguments as :func:`stable_json`), so a resumed history of
    8,000 messages is keyed in a few milliseconds. Text hashes are salted per process: a key
    is good in this process only, and is never saved."""
    keys: list[object] = [message.role, message.provider]
    for part in message.parts:
        if type(part) is ToolCall:
            keys.append((ToolCall, part.id, part.name, stable_json(part.arguments)))
        else:
            keys.append((type(part), part))
    return hash(tuple(keys))


def key_text(key: int) -> str:
    """A :func:`message_key` (or a chain step) as 16 hex digits."""
    return f"{key & _KEY_BITS:016x}"


class MessageDigests:
    """Message keys (:func:`message_key`) kept per id while the message's parts are the same
    objects (a long session's history is keyed once, not for every request); what one call
    of :func:`prefix_blocks` did not use is dropped after it."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Message, int]] = {}
        self._used: dict[str, tuple[Message, int]] = {}
        #: The last chain named: its head's name, its messages, its names.
        self._chain: tuple[str, list[Message], list[str]] | None = None

    def of(self, message: Message) -> int:
        """The key of what is sent of ``message``."""
        entry = self._used.get(message.id) or self._entries.get(message.id)
        if entry is None or (
            entry[0] is not message and (entry[0].parts is not message.parts or entry[0] != message)
        ):
            entry = (message, message_key(message))
        self._used[message.id] = entry
        return entry[1]

    def done(self) -> None:
        """One request is hashed: keep what it used."""
        self._entries, self._used = self._used, {}

    def chain(self, head: str, messages: Sequence[Message]) -> list[str]:
        """``head`` (the name of what comes before the conversation) then the name of each
        prefix of ``messages`` (see :func:`prefix_chain`). The names of the last chain's
        leading messages are reused while they are the same objects after the same head (a
        request is named several times on its way out; a name depends only on the head and
        the messages' keys)."""
        known = start = 0
        names = [head]
        last = self._chain
        if last is not None and last[0] == head:
            previous = last[1]
            limit = min(len(previous), len(messages))
            while known < limit and previous[known] is messages[known]:
                known += 1
            names = last[2][: known + 1]
            if known == len(previous) == len(messages):
                return list(names)  # the same messages: their keys are kept as they are
            if known == len(previous):  # the last chain's messages, then new ones
                self._used.update(self._entries)
                start = known
        current = names[-1]
        for index in range(start, len(messages)):
            key = self.of(messages[index])
            if index >= known:
                current = key_text(hash((current, key)))
                names.append(current)
        self.done()
        self._chain = (head, list(messages), names)
        return list(names)


def prefix_blocks(
    request: ModelRequest, digests: MessageDigests | None = None
) -> list[PrefixBlock]:
    """The request cut into hashed blocks, in the order the provider caches them (the model
    first: each model has its own cache). ``digests`` keeps message digests between calls."""
    cache = digests or MessageDigests()
    blocks = fixed_blocks(request) + message_blocks(request.messages, 1, cache)
    cache.done()
    return blocks


def fixed_blocks(request: ModelRequest) -> list[PrefixBlock]:
    """The blocks before the conversation: model, tools, system prompt, environment, thinking."""
    blocks = [PrefixBlock("model", "model", digest(request.model), request.model)]
    blocks += [
        PrefixBlock("tool", f"tool {spec.name}", digest(tool_content(spec)), spec)
        for spec in request.tools
    ]
    blocks.append(PrefixBlock("system", "system prompt", digest(request.system), request.system))
    env = request.environment
    blocks.append(PrefixBlock("environment", "environment", digest(env), env))
    thinking = request.thinking
    blocks.append(PrefixBlock("options", "thinking settings", digest(repr(thinking)), thinking))
    return blocks


def message_blocks(
    messages: Sequence[Message], first_number: int, digests: MessageDigests
) -> list[PrefixBlock]:
    """The blocks of ``messages``, numbered from ``first_number`` (1 for the first message)."""
    blocks = []
    for number, message in enumerate(messages, first_number):
        calls = tuple(r.call_id for r in message.parts if isinstance(r, ToolResult))
        label = f"message {number} ({message.role})"
        key = key_text(digests.of(message))
        blocks.append(PrefixBlock("message", label, key, message, message.id, calls))
    return blocks


def prefix_chain(request: ModelRequest, digests: MessageDigests | None = None) -> list[str]:
    """Names of the request's prefixes at each message boundary: ``chain[k]`` stands for the
    model, tools, system prompt, environment, thinking settings and the first ``k`` messages
    (``len(messages) + 1`` names). Equal names mean equal prefixes (in this process: message
    keys are :func:`message_key`): what the cache clock (``cache_clock.py``) keys its
    entries by."""
    head = [request.model, [tool_content(t) for t in request.tools], request.system]
    cache = digests or MessageDigests()
    return cache.chain(
        digest([*head, request.environment, repr(request.thinking)]), request.messages
    )


# --- breakpoint planning ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WireBlock:
    """One block of a provider request as the planner sees it.

    ``tokens`` is an estimate, used only to compare prefixes with the cache minimum (so a
    caller may stop counting, and pass 0, once the prefix is past it). ``message`` is the
    index of the wire message holding it (-1 outside the conversation); ``cacheable`` is
    False for blocks that cannot carry a marker (thinking, empty text); ``prompt`` is True
    for text the user side wrote (a user message, not a tool result): the stable part of a
    conversation ends with the latest one.
    """

    tokens: int
    section: Section
    message: int = -1
    role: str = ""
    cacheable: bool = True
    prompt: bool = False


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """A cache marker on block ``index``: its TTL and why it is there."""

    index: int
    ttl: CacheTtl
    reason: Reason


def plan_breakpoints(
    blocks: Sequence[WireBlock],
    *,
    static_end: int | None,
    environment_end: int | None,
    min_tokens: int,
    ttl: CacheTtl = SHORT_TTL,
    stable_ttl: CacheTtl | None = None,
    limit: int = MAX_BREAKPOINTS,
    lookback: int = SAFE_LOOKBACK,
) -> list[Breakpoint]:
    """Where the cache markers go, in block order (see the module docstring for the rules).

    ``static_end`` / ``environment_end`` index the last block of the static part and of the
    environment (None when absent). Every marker gets ``ttl``, unless ``stable_ttl`` is given:
    then the static part, the environment and the stable part (the conversation through the
    latest user prompt, its own marker) get ``stable_ttl`` and only the moving tail gets
    ``ttl``. A marker with a shorter lifetime never precedes a longer one (the provider
    refuses that): such a marker is left out. Markers whose cumulative prefix is under
    ``min_tokens`` are dropped; the previous tail is marked only when the tail is
    ``lookback`` or more blocks after it.
    """
    cumulative: list[int] = []
    running = 0
    for block in blocks:
        running += block.tokens
        cumulative.append(running)
    tail = _last_cacheable(blocks, len(blocks))
    previous = _previous_tail(blocks)
    if tail is None or previous is None or tail - previous < lookback:
        previous = None
    stable = _stable_end(blocks) if stable_ttl is not None else None
    if stable is not None and previous is not None and previous <= stable:
        previous = None  # the stable marker reads the same entry, and later
    fixed = stable_ttl or ttl
    candidates: list[tuple[int | None, Reason, CacheTtl]] = [
        (stable, "stable", fixed),
        (tail, "tail", ttl),
        (previous, "previous tail", ttl),
        (static_end, "static", fixed),
        (environment_end, "environment", fixed),
    ]
    chosen: dict[int, Breakpoint] = {}
    for index, reason, lifetime in candidates:
        if len(chosen) >= limit or index is None or index in chosen:
            continue
        if blocks[index].cacheable and cumulative[index] >= min_tokens:
            chosen[index] = Breakpoint(index, lifetime, reason)
    points = [chosen[i] for i in sorted(chosen)]
    return _longest_first(points)


def _longest_first(points: list[Breakpoint]) -> list[Breakpoint]:
    """``points`` without any marker that a marker with a longer lifetime follows."""
    if len({p.ttl for p in points}) < 2:
        return points
    last_long = max(i for i, p in enumerate(points) if p.ttl == "1h")
    return [p for i, p in enumerate(points) if p.ttl == "1h" or i > last_long]


def _stable_end(blocks: Sequence[WireBlock]) -> int | None:
    """The last cacheable block of the wire message holding the latest user prompt."""
    prompts = [b.message for b in blocks if b.section == "messages" and b.prompt]
    if not prompts:
        return None
    newest = prompts[-1]
    indexes = [i for i, b in enumerate(blocks) if b.message == newest and b.cacheable]
    return indexes[-1] if indexes else None


def _last_cacheable(blocks: Sequence[WireBlock], end: int) -> int | None:
    """The last cacheable conversation block before ``end``, if any."""
    for index in range(end - 1, -1, -1):
        block = blocks[index]
        if block.section != "messages":
            return None
        if block.cacheable:
            return index
    return None


def _previous_tail(blocks: Sequence[WireBlock]) -> int | None:
    """The last cacheable conversation block before the newest assistant message, if any."""
    newest = max(
        (b.message for b in blocks if b.section == "messages" and b.role == "assistant"),
        default=None,
    )
    if newest is None:
        return None
    first = next(i for i, b in enumerate(blocks) if b.section == "messages" and b.message == newest)
    return _last_cacheable(blocks, first)
