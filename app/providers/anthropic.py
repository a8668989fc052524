"""The Anthropic Messages API provider (official ``anthropic`` SDK, streamed raw events)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from lull.model.provider import ModelRequest, StreamEvent
from lull.providers.anthropic_events import AnthropicStreamState
from lull.providers.anthropic_wire import PROVIDER_NAME
from lull.providers.bodies import AnthropicBody
from lull.providers.config import ANTHROPIC_DEFAULT_URL, ProviderConfig
from lull.providers.errors import error_context
from lull.providers.retry import RetryTiming
from lull.providers.sdk import ENDPOINTS, LazyClient, post_stream, sdk_client
from lull.providers.streaming import run_stream

ENDPOINT = ENDPOINTS["anthropic"]


class AnthropicProvider:
    """Streams responses from Claude models; every failure becomes a ProviderError.

    ``timing`` is where retry waits sleep and read the clock (tests pass their own)."""

    name = PROVIDER_NAME

    def __init__(self, config: ProviderConfig, *, timing: RetryTiming | None = None) -> None:
        self.model = config.model
        self.timing = timing or RetryTiming()
        self.config = config
        self._errors = error_context(config)
        self.body = AnthropicBody(config.model)
        self.client = LazyClient(
            lambda: sdk_client(config, "anthropic", "AsyncAnthropic", ANTHROPIC_DEFAULT_URL)
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request``; yield deltas and finally one Completed (see Provider).

        The body is encoded by :class:`AnthropicBody` (each message once, lone surrogates
        replaced) and posted by the SDK's client."""
        body = self.body.encode(request)
        return run_stream(
            lambda: post_stream(self.client.get(), ENDPOINT, body),
            AnthropicStreamState(),
            self._errors,
            self.timing,
        )

    def prepare(self) -> None:
        """Make the SDK client now (its TLS context alone takes ~25 ms of CPU), so a
        background thread can spare the first request the wait."""
        self.client.get()

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self.client.aclose()
