"""The official SDK clients, built on first use, and a way to import an SDK ahead of time.

Importing ``anthropic`` in full takes one to two seconds, ``openai`` about half that; lull
imports only what its requests use (:mod:`lull.providers.lean_import`). A front end
that can show something first (the line-mode prompt) builds its runtime without the SDK
and calls :func:`preload_sdk`, so the import runs in a thread while the user types.
"""

from __future__ import annotations

import functools
import gc
import importlib
import logging
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from lull.providers.config import ProviderConfig
from lull.providers.lean_import import import_lean

log = logging.getLogger("lull.providers")


def sdk_client(config: ProviderConfig, module: str, class_name: str, default_url: str) -> Any:
    """An async SDK client (``module.class_name``) set up from ``config``; imports the SDK.

    The SDK never retries (lull's own loop in :mod:`lull.providers.streaming` does, and shows
    each wait); its timeout is ``config.timeout_seconds`` for every read (the first byte and
    each chunk after it) and a short one for connecting.
    """
    with without_collections():
        sdk = import_lean(module)
        client_class = getattr(sdk, class_name)
        timeout = sdk.Timeout(config.timeout_seconds, connect=config.connect_timeout_seconds)
    return client_class(
        api_key=config.api_key,
        base_url=config.base_url or default_url,
        max_retries=0,
        timeout=timeout,
    )


@dataclass(frozen=True)
class StreamEndpoint:
    """Where a provider posts its streamed requests, with its SDK's client class, the SDK
    types the answer is read as (module paths, resolved on first use) and the SDK request
    options to send."""

    sdk: str
    client: str
    path: str
    types: str
    response: str
    event: str
    options: Mapping[str, Any] = field(default_factory=dict)


ENDPOINTS = {
    "anthropic": StreamEndpoint(
        sdk="anthropic",
        client="AsyncAnthropic",
        path="/v1/messages",
        types="anthropic.types",
        response="Message",
        event="RawMessageStreamEvent",
    ),
    "openai": StreamEndpoint(
        sdk="openai",
        client="AsyncOpenAI",
        path="/chat/completions",
        types="openai.types.chat",
        response="ChatCompletion",
        event="ChatCompletionChunk",
        options={"security": {"bearer_auth": True}},
    ),
}
SDK_MODULES = {kind: endpoint.sdk for kind, endpoint in ENDPOINTS.items()}


@functools.cache
def _stream_types(sdk: str, types: str, response: str, event: str) -> tuple[Any, Any]:
    """(response class, stream class) of an endpoint (the SDK is imported by then)."""
    module = importlib.import_module(types)
    stream = getattr(importlib.import_module(sdk), "AsyncStream")  # noqa: B009
    return getattr(module, response), stream[getattr(module, event)]


def post_stream(client: Any, endpoint: StreamEndpoint, body: bytes) -> Awaitable[Any]:
    """The SDK client's own streamed POST of a body already encoded as JSON (its headers,
    auth, errors and stream decoding, none of its per-message walks over the body)."""
    response, stream = _stream_types(
        endpoint.sdk, endpoint.types, endpoint.response, endpoint.event
    )
    options = dict(endpoint.options)
    return client.post(  # type: ignore[no-any-return]
        endpoint.path,
        content=body,
        cast_to=response,
        stream=True,
        stream_cls=stream,
        options=options,
    )


def post_once(client: Any, endpoint: StreamEndpoint, body: bytes) -> Awaitable[Any]:
    """The SDK client's own non-streamed POST of a body already encoded as JSON; the answer
    is read as the endpoint's response type."""
    response, _ = _stream_types(endpoint.sdk, endpoint.types, endpoint.response, endpoint.event)
    return client.post(  # type: ignore[no-any-return]
        endpoint.path, content=body, cast_to=response, options=dict(endpoint.options)
    )


class LazyClient:
    """An SDK client made by ``factory`` the first time it is needed (by a request, or ahead
    of it in a background thread: :meth:`get` is thread-safe, one client is ever made)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        """Whether the client exists already."""
        return self._client is not None

    def get(self) -> Any:
        """The client (built now if this is the first use)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._factory()
        return self._client

    async def aclose(self) -> None:
        """Close the client's connections, if it was ever built."""
        if self._client is not None:
            await self._client.close()


def import_sdk(provider: str) -> None:
    """Import what the requests of ``provider`` ("anthropic" or "openai") use of its SDK now,
    in this thread: the client class and the stream types (the scripted provider has none)."""
    endpoint = ENDPOINTS.get(provider)
    if endpoint is not None:
        with without_collections():
            getattr(import_lean(endpoint.sdk), endpoint.client)
            _stream_types(endpoint.sdk, endpoint.types, endpoint.response, endpoint.event)


@contextmanager
def without_collections() -> Iterator[None]:
    """No garbage collection while objects that live as long as lull are made, and what was
    made frozen afterwards: an SDK's import, a resumed session's history.

    An import makes ~10^5 objects (classes, their schemas), a resumed 8,000-message history
    about as many; a collection in the middle only walks them again (a fifth of the import's
    CPU), and so would every full collection later (pauses of a tenth of a second while an
    answer streams).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.freeze()


@runtime_checkable
class Preparable(Protocol):
    """A provider whose SDK client can be made ahead of its first request."""

    def prepare(self) -> None:
        """Make the client now."""


def prepare_client(provider: object) -> None:
    """Make ``provider``'s SDK client now if it has one (off the UI thread: the first request
    then finds it made); a failure is only logged (the first request reports it)."""
    if isinstance(provider, Preparable):
        try:
            provider.prepare()
        except Exception:
            log.exception("making the SDK client ahead of time failed")


def preload_sdk(provider: str, then: Callable[[], None] | None = None) -> threading.Thread:
    """Start importing the SDK of ``provider`` in a daemon thread, then run ``then`` there (to
    make the client); a failure is only logged (the first request imports it again and
    reports the problem)."""

    def work() -> None:
        try:
            import_sdk(provider)
        except Exception:
            log.exception("importing the %s SDK ahead of time failed", provider)
            return
        if then is not None:
            then()

    thread = threading.Thread(target=work, name=f"import-{provider}", daemon=True)
    thread.start()
    return thread
