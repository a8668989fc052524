"""Request bodies as JSON bytes, each message encoded once.

A long session sends the same messages with every request, only a few new ones at the end.
Building wire dicts, replacing lone surrogates (:func:`app.model.text.wire_safe`) and
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

from app.model.messages import Message, Part
from app.model.provider import ModelRequest, Vendor
from app.model.text import wire_safe
from app.providers import anthropic_wire, openai_wire

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


class OpenAIBody:
    """Chat Completions bodies for one model and vendor dialect."""

    def __init__(self, model: str, vendor: Vendor) -> None:
        self.model = model
        self.vendor = vendor
        self.fragments = Fragments()

    def encode(self, request: ModelRequest) -> bytes:
        """The JSON body of ``request``."""
        head = openai_wire.head_params(request, self.model, self.vendor)
        system = openai_wire.system_messages(request.system, request.environment)
        fragments = [encode_json(m) for m in system]
        fragments += [self._message(m) for m in request.messages]
        self.fragments.done()
        return with_messages(head, fragments)

    def _message(self, message: Message) -> bytes:
        def make() -> bytes:
            return b",".join(encode_json(m) for m in openai_wire.wire_messages(message, vendor))

        vendor = self.vendor
        variant = (message.role, message.provider)
        return self.fragments.get(message.id, message.parts, variant, make)


class AnthropicBody:
    """Messages API bodies for one model, with the cache markers of every request."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.fragments = Fragments()
        self._blocks: dict[str, tuple[tuple[Part, ...], list[dict[str, Any]]]] = {}
        self._blocks_used: dict[str, tuple[tuple[Part, ...], list[dict[str, Any]]]] = {}

    def encode(self, request: ModelRequest) -> bytes:
        """The JSON body of ``request`` (markers as :func:`anthropic_wire.build_params`)."""
        bare = replace(request, messages=(), prompt_caching=False)
        params = anthropic_wire.build_params(bare, self.model)
        del params["messages"]
        params["stream"] = True
        groups = anthropic_wire.message_groups(request.messages, self._message_blocks)
        self._blocks, self._blocks_used = self._blocks_used, {}
        marked: dict[int, list[tuple[int, dict[str, str]]]] = {}
        if request.prompt_caching:
            marked = self._markers(request, params, groups)
        fragments = [
            self._group(number, group, tuple(marked.get(number, ())))
            for number, group in enumerate(groups)
        ]
        self.fragments.done()
        return with_messages(params, fragments)

    def _markers(
        self,
        request: ModelRequest,
        params: dict[str, Any],
        groups: list[anthropic_wire.MessageGroup],
    ) -> dict[int, list[tuple[int, dict[str, str]]]]:
        """Cache markers by wire message: (block index, marker); tools and system blocks in
        ``params`` get theirs in place (they are made anew for every request)."""
        tools: list[dict[str, Any]] = params.get("tools", [])
        system: list[dict[str, Any]] = params.get("system", [])
        messages = [{"role": g.role, "content": g.content} for g in groups]
        points = anthropic_wire.plan_cache_markers(
            tools,
            system,
            messages,
            min_tokens=anthropic_wire.min_cacheable_tokens(self.model),
            ttl=request.cache_ttl,
            has_environment=bool(request.environment),
        )
        prefix = [*tools, *system]
        starts, start = [], len(prefix)
        for group in groups:
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

    def _message_blocks(self, message: Message) -> list[dict[str, Any]]:
        """A message's blocks, made once per id and parts (never changed afterwards)."""
        entry = self._blocks_used.get(message.id) or self._blocks.get(message.id)
        if entry is None or entry[0] is not message.parts:
            entry = (message.parts, anthropic_wire.message_blocks(message))
        self._blocks_used[message.id] = entry
        return entry[1]

    def _group(
        self,
        number: int,
        group: anthropic_wire.MessageGroup,
        markers: tuple[tuple[int, dict[str, str]], ...],
    ) -> bytes:
        def make() -> bytes:
            content = list(group.content)
            for index, marker in markers:
                content[index] = {**content[index], "cache_control": marker}
            return encode_json({"role": group.role, "content": content})

        # the members themselves: the same objects (or equal ones) make the same JSON
        variant = tuple([(i, marker["type"], marker.get("ttl")) for i, marker in markers])
        return self.fragments.get(group.members[0].id, group.members, variant, make)
