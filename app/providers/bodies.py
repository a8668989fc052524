"""Request bodies as JSON bytes, each message encoded once.

A long session sends the same messages with every request, only a few new ones at the end.
Building wire dicts, replacing lone surrogates (:func:`lull.model.text.wire_safe`) and
encoding JSON for the whole history each time costs tens of milliseconds at 150k tokens,
and the SDKs add their own walk over every message (openai's per-message type transform,
anthropic's deep copy of the body). So each provider keeps a body encoder: a message's wire
JSON is made once and kept (under its id, as long as its parts are the same), and a request
is the fixed head, then those fragments joined; the SDK's client sends the bytes as they
are (``post(..., content=body)``: its retries, errors and streaming stay the SDK's).

The bytes are the JSON of ``wire_safe(build_params(request, ...))`` (Anthropic's with
``"stream": true``, which ``messages.create(stream=True)`` adds) with ``messages`` as the last
key (tests check it); the wire modules stay the one place that says what a message
looks like on the wire.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import Any

from lull.model.messages import Message, Part
from lull.model.provider import ModelRequest, Vendor
from lull.model.text import wire_safe
from lull.providers import anthropic_wire, openai_wire
from lull.providers.sdk import without_collections

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_json(value: Any) -> bytes:
    """``value`` as the SDKs encode a body: compact UTF-8 JSON, lone surrogates replaced
    (strict UTF-8 refuses them, so only a value that holds one is walked and replaced)."""
    text = _ENCODER.encode(value)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return encode_json(wire_safe(value))


def with_messages(head: dict[str, Any], fragments: Sequence[bytes]) -> bytes:
    """The body: ``head`` encoded, then ``"messages"`` holding ``fragments`` (each one or
    more encoded messages, comma-separated)."""
    encoded = encode_json(head)
    opening = encoded[:-1] + (b',"messages":[' if head else b'"messages":[')
    return opening + b",".join(f for f in fragments if f) + b"]}"


class Fragments:
    """Encoded JSON kept per key (a message id) with what it was made from.

    An entry is reused while the parts are the same (the same objects, or equal ones: a
    view rebuilt after a context edit makes new objects for cleared messages) and the
    variant matches. Entries a request did not use are dropped after it (:meth:`done`),
    so the cache holds one request's worth.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[object, Hashable, bytes]] = {}
        self._used: dict[str, tuple[object, Hashable, bytes]] = {}
        self.encoded = 0  # fragments encoded (not reused) so far, for tests and benchmarks

    def get(self, key: str, source: object, variant: Hashable, make: Callable[[], bytes]) -> bytes:
        """The fragment for ``key`` made from ``source`` (parts) in ``variant``."""
        entry = self._used.get(key) or self._entries.get(key)
        if entry is not None and entry[1] == variant and (entry[0] is source or entry[0] == source):
            data = entry[2]
        else:
            data = make()
            self.encoded += 1
        self._used[key] = (source, variant, data)
        return data

    def done(self) -> None:
        """The request is built: keep what it used, drop the rest."""
        self._entries, self._used = self._used, {}


class Settled:
    """The JSON of a conversation's older wire messages, kept as one comma-separated blob.

    Older messages never change until a context edit, so a request reuses the blob and
    encodes only what settled since, in one call. A changed unit cuts the blob back to where
    the batch holding it began (the end of each batch is kept), and what follows is encoded
    again. ``units`` are compared by identity, then equality.
    """

    def __init__(self) -> None:
        self._units: list[object] = []
        self._batches: list[tuple[int, int]] = [(0, 0)]  # (units, bytes) at each batch end
        self._blob = b""

    @property
    def count(self) -> int:
        """Units kept (settled so far)."""
        return len(self._units)

    def blob(self, units: Sequence[object], encode: Callable[[Sequence[object]], bytes]) -> bytes:
        """The JSON of ``units`` (``encode`` makes it for those not kept, comma-separated)."""
        same = 0
        for kept, unit in zip(self._units, units, strict=False):
            if kept is not unit and kept != unit:
                break
            same += 1
        if same < len(self._units):
            while self._batches[-1][0] > same:
                self._batches.pop()
            same, size = self._batches[-1]
            del self._units[same:]
            self._blob = self._blob[:size]
        if same < len(units):
            data = encode(units[same:])
            if data:
                self._blob = self._blob + b"," + data if self._blob else data
            self._units.extend(units[same:])
            self._batches.append((len(self._units), len(self._blob)))
        return self._blob


TAIL = 24
"""Wire messages at the end of a conversation encoded one by one (where cache markers may
go); those before them are settled (:class:`Settled`)."""

MANY_NEW = 1_000
"""Messages new to a body encoder at which a request's body is built with no garbage
collection (:func:`lull.providers.sdk.without_collections`): the first request after a resume
makes a few objects a message, kept for the next requests (wire blocks), and a full
collection in the middle of making them walks them and the whole SDK again (~10 ms at
8,000 messages)."""


class OpenAIBody:
    """Chat Completions bodies for one model and vendor dialect."""

    def __init__(self, model: str, vendor: Vendor) -> None:
        self.model = model
        self.vendor = vendor
        self.fragments = Fragments()
        self.settled = Settled()

    def encode(self, request: ModelRequest) -> bytes:
        """The JSON body of ``request`` (many new messages: built without collections)."""
        if len(request.messages) - self.settled.count < MANY_NEW:
            return self._encode(request)
        with without_collections():
            return self._encode(request)

    def _encode(self, request: ModelRequest) -> bytes:
        head = openai_wire.head_params(request, self.model, self.vendor)
        head.update(head.pop("extra_body", {}))  # as the SDK sends it: merged into the body
        system = openai_wire.system_messages(request.system, request.environment)
        messages = openai_wire.sendable(request.messages, self.model)
        older = messages[: max(0, len(messages) - TAIL)]
        fragments = [encode_json(m) for m in system]
        fragments.append(self.settled.blob(older, self._encode_many))
        fragments += [self._message(m) for m in messages[len(older) :]]
        self.fragments.done()
        return with_messages(head, fragments)

    def _encode_many(self, messages: Sequence[object]) -> bytes:
        """Wire messages of ``messages``, encoded in one call (comma-separated, no brackets)."""
        wire = [
            item
            for message in messages
            if isinstance(message, Message)
            for item in openai_wire.wire_messages(message, self.vendor)
        ]
        return encode_json(wire)[1:-1]

    def _message(self, message: Message) -> bytes:
        def make() -> bytes:
            return self._encode_many([message])

        variant = (message.role, message.provider)
        return self.fragments.get(message.id, message.parts, variant, make)


class AnthropicBody:
    """Messages API bodies for one model, with the cache markers of every request."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.fragments = Fragments()
        self.settled = Settled()
        self._blocks: dict[str, tuple[tuple[Part, ...], list[dict[str, Any]]]] = {}
        self._blocks_used: dict[str, tuple[tuple[Part, ...], list[dict[str, Any]]]] = {}
        self._messages: Sequence[Message] = ()
        self._groups: list[anthropic_wire.MessageGroup] = []

    def encode(self, request: ModelRequest) -> bytes:
        """The JSON body of ``request`` (markers as :func:`anthropic_wire.build_params`; many
        new messages: built without collections)."""
        if len(request.messages) - len(self._messages) < MANY_NEW:
            return self._encode(request)
        with without_collections():
            return self._encode(request)

    def _encode(self, request: ModelRequest) -> bytes:
        bare = replace(request, messages=(), prompt_caching=False)
        params = anthropic_wire.build_params(bare, self.model)
        del params["messages"]
        params["stream"] = True
        groups = self._grouped(anthropic_wire.sendable(request.messages, self.model))
        older, tail = groups[: max(0, len(groups) - TAIL)], groups[max(0, len(groups) - TAIL) :]
        prefill = len(tail) - 1 if request.continue_final and tail[-1:] else -1
        marked: dict[int, list[tuple[int, dict[str, str]]]] = {}
        if request.prompt_caching:
            marked = self._markers(request, params, older, tail, prefill)
        fragments = [self.settled.blob(older, _encode_groups)]
        fragments += [
            self._group(group, tuple(marked.get(number, ())), prefill=number == prefill)
            for number, group in enumerate(tail)
        ]
        self.fragments.done()
        return with_messages(params, fragments)

    def _grouped(self, messages: Sequence[Message]) -> list[anthropic_wire.MessageGroup]:
        """The wire messages of ``messages``, reusing those of the previous request that
        ``messages`` still starts with (a conversation only grows between context edits)."""
        same = 0
        for before, now in zip(self._messages, messages, strict=False):
            if before is not now:
                break
            same += 1
        keep = max(0, bisect_right([g.end for g in self._groups], same) - 1)
        start = self._groups[keep - 1].end if keep else 0
        added = anthropic_wire.message_groups(messages[start:], self._message_blocks)
        if start:  # ends relative to the whole conversation
            added = [
                anthropic_wire.MessageGroup(g.role, g.members, g.content, g.end + start)
                for g in added
            ]
        groups = self._groups[:keep] + added
        self._blocks, self._blocks_used = self._blocks_used, {}
        self._messages, self._groups = messages, groups
        return groups

    def _markers(
        self,
        request: ModelRequest,
        params: dict[str, Any],
        older: list[anthropic_wire.MessageGroup],
        tail: list[anthropic_wire.MessageGroup],
        prefill: int,
    ) -> dict[int, list[tuple[int, dict[str, str]]]]:
        """Cache markers by wire message of the tail: (block index, marker); tools and system
        blocks in ``params`` get theirs in place (they are made anew for every request).
        ``prefill`` is the tail message sent as a prefill (-1: none)."""
        tools: list[dict[str, Any]] = params.get("tools", [])
        system: list[dict[str, Any]] = params.get("system", [])
        wire = [{"role": g.role, "content": g.content} for g in tail]
        if prefill >= 0 and tail[prefill].role == "assistant":
            wire[prefill]["content"] = anthropic_wire.prefill_content(tail[prefill].content)
        points = anthropic_wire.plan_cache_markers(
            tools,
            system,
            wire,
            min_tokens=anthropic_wire.min_cacheable_tokens(self.model),
            ttl=request.cache_ttl,
            stable_ttl=request.cache_stable_ttl,
            has_environment=bool(request.environment),
            earlier=(block for group in older for block in group.content),
            shared_blocks=self._shared_blocks(request, wire),
        )
        prefix = [*tools, *system]
        starts, start = [], len(prefix)
        for group in tail:
            starts.append(start)
            start += len(group.content)
        marked: dict[int, list[tuple[int, dict[str, str]]]] = {}
        for index, marker in points:
            if index < len(prefix):
                prefix[index]["cache_control"] = marker
                continue
            number = bisect_right(starts, index) - 1
            marked.setdefault(number, []).append((index - starts[number], marker))
        return marked

    def _shared_blocks(self, request: ModelRequest, wire: list[dict[str, Any]]) -> int | None:
        """How many blocks of the tail's ``wire`` messages the next request repeats (None:
        all): a trailing ``request_only`` message (a note, a partial answer) never ends the
        stable part."""
        if not request.request_only:
            return None
        only = request.messages[len(request.messages) - request.request_only :]
        extra = sum(len(self._message_blocks(m)) for m in only)
        return max(0, sum(len(m["content"]) for m in wire) - extra)

    def _message_blocks(self, message: Message) -> list[dict[str, Any]]:
        """A message's blocks, made once per id and parts (never changed afterwards)."""
        entry = self._blocks_used.get(message.id) or self._blocks.get(message.id)
        if entry is None or entry[0] is not message.parts:
            entry = (message.parts, anthropic_wire.message_blocks(message))
        self._blocks_used[message.id] = entry
        return entry[1]

    def _group(
        self,
        group: anthropic_wire.MessageGroup,
        markers: tuple[tuple[int, dict[str, str]], ...],
        *,
        prefill: bool = False,
    ) -> bytes:
        """One wire message of the tail, with its cache markers (``prefill``: the partial
        answer a request continues, sent as :func:`anthropic_wire.prefill_content`)."""
        prefill = prefill and group.role == "assistant"

        def make() -> bytes:
            content = list(group.content)
            if prefill:
                content = anthropic_wire.prefill_content(content)
            for index, marker in markers:
                content[index] = {**content[index], "cache_control": marker}
            return encode_json({"role": group.role, "content": content})

        # the members themselves: the same objects (or equal ones) make the same JSON
        variant = (prefill, *[(i, marker["type"], marker.get("ttl")) for i, marker in markers])
        return self.fragments.get(group.members[0].id, group.members, variant, make)


def _encode_groups(groups: Sequence[object]) -> bytes:
    """Settled wire messages, encoded in one call (comma-separated, no brackets)."""
    wire = [
        {"role": g.role, "content": g.content}
        for g in groups
        if isinstance(g, anthropic_wire.MessageGroup)
    ]
    return encode_json(wire)[1:-1]
