"""Usage for servers whose streams carry none (llama-cpp-python): ask the server itself.

llama-cpp-python's server never puts usage in a stream, ``stream_options`` or not, so lull
could neither calibrate its token counts against the model's tokenizer nor tell that the
server left the tool definitions out. On a local server a one-token, non-streamed copy of
the request just answered costs about one generated token (the server's prompt cache holds
that prompt) and says how many prompt tokens the server really rendered. lull asks after the
first answer without usage and then after every :data:`PROBE_EVERY`-th; a server whose
probe fails or reports nothing is not asked again. The answer's own output tokens are
counted locally (the probe generated one).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from lull.context.tokens import TokenCounter
from lull.model.provider import Completed, Usage
from lull.providers.bodies import encode_json
from lull.providers.sdk import LazyClient, StreamEndpoint, post_once

log = logging.getLogger("lull.providers")

PROBE_EVERY = 10
"""Answers without usage between two probes (the first one is probed)."""


class UsageProbe:
    """Asks a local server for the prompt size its streams do not report (see the module)."""

    def __init__(
        self, client: LazyClient, endpoint: StreamEndpoint, *, model: str, local: bool
    ) -> None:
        self.client = client
        self.endpoint = endpoint
        self.model = model
        self.enabled = local
        self.unreported = 0  # answers without usage so far
        self.probes = 0  # probes sent, for tests

    def due(self, completed: Completed) -> bool:
        """Whether ``completed`` (an answer whose stream held no usage) should be probed."""
        if completed.usage.reported or not self.enabled:
            return False
        self.unreported += 1
        return (self.unreported - 1) % PROBE_EVERY == 0

    async def completed(self, completed: Completed, body: bytes) -> Completed:
        """``completed`` with the usage the server reports for ``body`` (the request it
        answered); unchanged when the server does not say."""
        prompt = await self._prompt_tokens(body)
        if prompt is None:
            self.enabled = False
            return completed
        counter = TokenCounter(self.model)
        output = sum(counter.part(part) for part in completed.parts)
        usage = Usage(input=prompt, output=output)
        return Completed(completed.parts, usage, completed.stop_reason, completed.model)

    async def _prompt_tokens(self, body: bytes) -> int | None:
        self.probes += 1
        try:
            answer = await post_once(self.client.get(), self.endpoint, _one_token(body))
        except Exception as exc:  # any failure: the server is not asked again
            log.debug("usage probe failed: %s", exc)
            return None
        usage = getattr(answer, "usage", None)
        prompt = getattr(usage, "prompt_tokens", None)
        if not isinstance(prompt, int) or prompt <= 0:
            log.debug("usage probe: the server reported no prompt tokens")
            return None
        return prompt


def _one_token(body: bytes) -> bytes:
    """``body`` as a non-streamed request for one token."""
    request: dict[str, Any] = json.loads(body)
    request["stream"] = False
    request.pop("stream_options", None)
    limit = "max_completion_tokens" if "max_completion_tokens" in request else "max_tokens"
    request[limit] = 1
    return encode_json(request)
