"""The OpenAI Chat Completions provider (official ``openai`` SDK), for OpenAI and
compatible vendors (DeepSeek, Kimi, Qwen, vLLM, Ollama …) selected by ``vendor``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from lull.catalog.local_servers import is_local_url
from lull.model.provider import Completed, ModelRequest, StreamEvent
from lull.providers.bodies import OpenAIBody
from lull.providers.config import OPENAI_DEFAULT_URL, ProviderConfig
from lull.providers.errors import error_context
from lull.providers.openai_events import OpenAIStreamState
from lull.providers.openai_wire import PROVIDER_NAME
from lull.providers.retry import RetryTiming
from lull.providers.sdk import ENDPOINTS, LazyClient, post_stream, sdk_client
from lull.providers.streaming import run_stream
from lull.providers.usage_probe import UsageProbe

ENDPOINT = ENDPOINTS["openai"]


class OpenAIProvider:
    """Streams chat completions; every failure becomes a ProviderError.

    ``timing`` is where retry waits sleep and read the clock (tests pass their own)."""

    name = PROVIDER_NAME

    def __init__(self, config: ProviderConfig, *, timing: RetryTiming | None = None) -> None:
        self.model = config.model
        self.timing = timing or RetryTiming()
        self.vendor = config.vendor
        self.config = config
        self._errors = error_context(config)
        self.body = OpenAIBody(config.model, config.vendor)
        self.client = LazyClient(
            lambda: sdk_client(config, "openai", "AsyncOpenAI", OPENAI_DEFAULT_URL)
        )
        local = is_local_url(config.effective_base_url)
        self.usage_probe = UsageProbe(self.client, ENDPOINT, model=config.model, local=local)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Send ``request``; yield deltas and finally one Completed (see Provider).

        The body is encoded by :class:`OpenAIBody` (each message once, lone surrogates
        replaced) and posted by the SDK's client, without its per-message transform. A local
        server whose stream held no usage is asked for it (:mod:`lull.providers.usage_probe`)."""
        return self._stream(self.body.encode(request))

    async def _stream(self, body: bytes) -> AsyncIterator[StreamEvent]:
        events = run_stream(
            lambda: post_stream(self.client.get(), ENDPOINT, body),
            OpenAIStreamState(),
            self._errors,
            self.timing,
        )
        async with contextlib.aclosing(events):  # a consumer that stops early closes the stream
            async for event in events:
                if isinstance(event, Completed) and self.usage_probe.due(event):
                    event = await self.usage_probe.completed(event, body)
                yield event

    def prepare(self) -> None:
        """Make the SDK client now (its TLS context alone takes ~25 ms of CPU), so a
        background thread can spare the first request the wait."""
        self.client.get()

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self.client.aclose()
