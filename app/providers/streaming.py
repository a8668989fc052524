"""The stream loop both providers share: open (with lull's retries), feed a state, map every
failure."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Protocol

from lull.model.provider import Completed, ProviderError, StreamEvent
from lull.providers.errors import (
    ErrorContext,
    empty_stream_error,
    is_timeout,
    map_error,
    status_signature,
)
from lull.providers.retry import RetryTiming, Signature, plan_retry


class StreamState(Protocol):
    """Accumulates one provider's stream items into neutral events."""

    def feed(self, item: Any) -> list[StreamEvent]:
        """Take one SDK stream item; return the deltas it produces."""
        ...

    def completed(self) -> Completed:
        """The final event, or raise ProviderError("stream_cut")."""
        ...


async def run_stream(
    open_stream: Callable[[], Awaitable[Any]],
    state: StreamState,
    errors: ErrorContext,
    timing: RetryTiming | None = None,
) -> AsyncGenerator[StreamEvent, None]:
    """Open the SDK stream (retrying as :mod:`lull.providers.retry` says, with a
    :class:`Retrying` event before each wait), yield the state's deltas, then its Completed.

    Failures before the first byte map as connection/status errors; transport
    failures after it mean the answer was cut; a stream that ends (or breaks) before
    sending anything at all is "empty_stream". No SDK exception escapes.
    """
    timing = timing or RetryTiming()
    attempt = 0
    previous: Signature = None
    while True:
        try:
            items = await open_stream()
            break
        except Exception as exc:
            step = plan_retry(exc, attempt, previous, errors, timing)
            if isinstance(step, ProviderError):
                raise step from exc
            yield step
            await timing.sleep(step.wait_seconds)
            attempt, previous = attempt + 1, status_signature(exc)
    received = 0
    try:
        async for item in items:
            received += 1
            for event in state.feed(item):
                yield event
    except Exception as exc:
        error = map_error(exc, errors, streaming=received > 0 or not is_timeout(exc))
        if received == 0 and error.kind == "stream_cut":
            error = empty_stream_error(errors)
        raise error from exc
    finally:
        await _close_quietly(items)
    if received == 0:
        raise not_a_stream_error(items, errors) or empty_stream_error(errors)
    yield state.completed()


def not_a_stream_error(items: Any, errors: ErrorContext) -> ProviderError | None:
    """The error for a 200 answer that was no event stream at all (an HTML login page, a
    proxy's JSON): what came back, by its content type; None when it was an event stream."""
    response = getattr(items, "response", None)
    headers = getattr(response, "headers", None)
    kind = str(headers.get("content-type", "") if headers is not None else "").split(";")[0]
    if not kind.strip() or "event-stream" in kind:
        return None
    return ProviderError(
        "server",
        f"{errors.service} answered 200 OK with {kind.strip()} instead of an event stream of "
        f"an answer: is {errors.base_url} the API's address (OpenAI-compatible ones usually "
        "end in /v1)?",
    )


async def _close_quietly(items: Any) -> None:
    try:
        await items.close()
    except Exception:  # closing an already broken stream must not hide the real error
        return
