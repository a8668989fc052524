"""The Anthropic Messages API provider (official ``anthropic`` SDK, streamed raw events)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from app.model.provider import ModelRequest, StreamEvent
from app.model.text import wire_safe
from app.providers.anthropic_events import AnthropicStreamState
from app.providers.anthropic_wire import PROVIDER_NAME, build_params
from app.providers.config import ANTHROPIC_DEFAULT_URL, ProviderConfig
from app.providers.errors import error_context
from app.providers.retry import RetryTiming
from app.providers.sdk import LazyClient, sdk_client
from app.providers.streaming import run_stream


class AnthropicProvider:
    """Streams responses from Claude models; every failure becomes a ProviderError.

    ``timing`` is where retry waits sleep and read the clock (tests pass their own)."""

    name = PROVIDER_NAME

    def __init__(self, config: ProviderConfig, *, timing: RetryTiming | None = None) -> None:
        self.model = config.model
        self.timing = timing or RetryTiming()
        self.config = config
        self._errors = error_context(config)
        self._client = LazyClient(
            lambda: sdk_client(config, "anthropic", "AsyncAnthropic", ANTHROPIC_DEFAULT_URL)
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request``; yield deltas and finally one Completed (see Provider)."""
        # wire_safe: JSON cannot carry a lone surrogate (a file name's stray byte, a model's)
        params = wire_safe(build_params(request, self.model))
        return run_stream(
            lambda: self._client.get().messages.create(**params, stream=True),
            AnthropicStreamState(),
            self._errors,
            self.timing,
        )

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.aclose()
