"""FakeServer: the loopback Anthropic + OpenAI fake that tests start, script and inspect."""

from __future__ import annotations

import contextlib
import gc
import socket
import threading
from collections import deque
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Any

from tests.fakes.anthropic_accepted import AcceptedPrefixes
from tests.fakes.cache import (
    ANTHROPIC_MIN_CACHE_TOKENS,
    DEFAULT_MIN_CACHE_TOKENS,
    EntryStore,
    PrefixMemo,
)
from tests.fakes.clock import FakeClock
from tests.fakes.errors import WireError
from tests.fakes.faults import FaultBook, HttpFailure, StreamFault
from tests.fakes.quirks import ServerQuirks
from tests.fakes.request_text import RecentMessages
from tests.fakes.script import Reply, echo_reply
from tests.fakes.server_view import ThinkingBilling
from tests.fakes.signing import DEFAULT_SECRET, Signer

GENERATION_PATHS = ("/v1/messages", "/v1/chat/completions")


@dataclass(frozen=True)
class JournalEntry:
    """One request the fake received: which API, path, lower-cased headers, parsed body, and
    what it answered (status, error message or None, usage or None)."""

    api: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int
    error: str | None
    usage: dict[str, Any] | None


class _Httpd(ThreadingHTTPServer):
    """The stdlib server, tracking open connections so stop() can close idle keep-alives."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], fake: FakeServer) -> None:
        from tests.fakes.handler import FakeHandler

        self.fake = fake
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, FakeHandler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Remember the connection, then serve it in its own thread."""
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        """Forget the connection once its handler is done."""
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Shut down every open connection (handler threads then exit)."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class FakeServer:
    """A scripted Anthropic Messages + OpenAI Chat Completions server on 127.0.0.1.

    Use as a context manager (or start()/stop()); point the anthropic SDK at ``url`` and the
    openai SDK at ``url + "/v1"``. Settings are plain attributes a test may change at any time.
    """

    def __init__(self, port: int = 0, *, host: str = "127.0.0.1", secret: bytes = DEFAULT_SECRET):
        self.host, self.port = host, port
        self.clock = FakeClock()
        self.signer = Signer(secret)
        self.faults = FaultBook()
        self.dialect = "openai"
        self.api_key: str | None = None
        self.models: set[str] | None = None
        self.max_context_tokens: int | None = None
        self.quirks = ServerQuirks()
        self.default_reply: Reply = echo_reply()
        self.cache_minimums: list[tuple[str, int]] = list(ANTHROPIC_MIN_CACHE_TOKENS)
        self.cache_min_default = DEFAULT_MIN_CACHE_TOKENS
        self.openai_cache_ttl = 300.0
        #: How earlier turns' thinking is billed (``server_view.ThinkingBilling``): by the
        #: model's documented rule unless a test says otherwise.
        self.thinking_billing: ThinkingBilling = "auto"
        #: Server-side context editing applied to every Messages request as if it asked for
        #: it (``{"edits": [...]}``, the shape of ``context_management``); None: only what a
        #: request itself asks for.
        self.context_management: dict[str, Any] | None = None
        self.openai_cache_granularity = 128
        self.anthropic_cache = EntryStore(lambda: self.clock.now())
        self.openai_cache = EntryStore(lambda: self.clock.now())
        #: Each message's blocks as the cache simulators worked them out (``cache.PrefixMemo``).
        self.prefix_memo = PrefixMemo()
        #: The last accepted Messages requests (``anthropic_accepted.AcceptedPrefixes``).
        self.accepted = AcceptedPrefixes()
        self._queue: deque[Reply] = deque()
        self._journal: list[JournalEntry] = []
        #: After each request, move what the process holds (the journal too) out of the
        #: garbage collector's sight (``gc.freeze``). The journal only grows, and each long
        #: prompt parsed sets off a full collection that walks every body kept before: for a
        #: fake in its own process (``python -m tests.fakes``), never for one inside a test.
        self.freeze_journal = False
        #: Give a message a recent request sent as the same text that request's value, not
        #: a new parse (``request_text.RecentMessages``): the bodies then share objects, so
        #: only for a fake whose journal nobody reads (one in its own process).
        self.recent_messages: RecentMessages | None = None
        self._lock = threading.Lock()
        self._httpd: _Httpd | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -------------------------------------------------------------------------------
    def start(self) -> FakeServer:
        """Bind and serve in a daemon thread; returns self."""
        if self._httpd is not None:
            return self
        self._httpd = _Httpd((self.host, self.port), self)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.close_connections()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the anthropic base_url; add ``/v1`` for openai)."""
        if self._httpd is None:
            raise RuntimeError(
                "FakeServer is not running: use `with FakeServer() as fake` or start()"
            )
        return f"http://{self.host}:{self.port}"

    # script ----------------------------------------------------------------------------------
    def script(self, *replies: Reply) -> None:
        """Queue replies; each is served to whichever API asks next."""
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(f"script() takes Reply objects, got {type(reply).__name__}")
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending_replies(self) -> int:
        """How many scripted replies have not been served yet."""
        with self._lock:
            return len(self._queue)

    def take_reply(self, body: dict[str, Any]) -> tuple[Reply | None, Reply]:
        """Pop the next scripted reply (None if the default was used) and its resolved form."""
        with self._lock:
            item = self._queue.popleft() if self._queue else None
        try:
            return item, (item or self.default_reply).resolve(body)
        except Exception as exc:  # a broken respond() must be visible, not a hang
            self.requeue(item)
            raise WireError(
                500, f"fake: Reply.respond failed: {exc!r}", headers={"x-should-retry": "false"}
            ) from exc

    def requeue(self, item: Reply | None) -> None:
        """Put a scripted reply back at the front (a faulted stream did not deliver it)."""
        if item is not None:
            with self._lock:
                self._queue.appendleft(item)

    # faults ----------------------------------------------------------------------------------
    def fail_next(
        self,
        status: int = 429,
        retry_after_ms: int | None = 10,
        times: int = 1,
        message: str | None = None,
        should_retry: bool | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer the next ``times`` generation requests with HTTP ``status`` (with
        ``retry-after-ms``/``retry-after`` headers unless None, ``x-should-retry`` if given,
        and any other ``headers``)."""
        failure = HttpFailure(status, retry_after_ms, times, message, should_retry, headers)
        self.faults.add_failure(failure)

    def cut_next_stream(self, after_events: int = 3) -> None:
        """Close the socket of the next streamed response after ``after_events`` SSE frames."""
        self.faults.add_stream_fault(StreamFault("cut", after_events))

    def error_next_stream(
        self, after_events: int = 3, type: str = "overloaded_error", message: str = "Overloaded"
    ) -> None:
        """Send an SSE error event (of ``type``) in the next streamed response after
        ``after_events`` frames, then end the stream."""
        self.faults.add_stream_fault(StreamFault("error", after_events, type, message))

    # journal ---------------------------------------------------------------------------------
    def record(self, entry: JournalEntry) -> None:
        """Append to the journal (called by the HTTP handler)."""
        with self._lock:
            self._journal.append(entry)
            if self.freeze_journal:
                gc.freeze()

    @property
    def journal(self) -> list[JournalEntry]:
        """Every request so far, oldest first (a copy)."""
        with self._lock:
            return list(self._journal)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Bodies of the successful (200) generation requests, oldest first."""
        return [e.body for e in self.journal if e.status == 200 and e.path in GENERATION_PATHS]

    # helpers ---------------------------------------------------------------------------------
    def sign_thinking(self, text: str) -> str:
        """The signature this server accepts for a thinking block with exactly ``text``."""
        return self.signer.sign_thinking(text)

    def reset(self) -> None:
        """Forget script, journal, pending faults and both caches (settings stay)."""
        with self._lock:
            self._queue.clear()
            self._journal.clear()
        self.faults.clear()
        self.anthropic_cache.clear()
        self.openai_cache.clear()
