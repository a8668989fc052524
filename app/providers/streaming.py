"""The stream loop both providers share: open, feed a state, map every failure."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from app.model.provider import Completed, StreamEvent
from app.providers.errors import ErrorContext, map_error


class StreamState(Protocol):
    """Accumulates one provider's stream items into neutral events."""

    def feed(self, item: Any) -> list[StreamEvent]:
        """Take one SDK stream item; return the deltas it produces."""
        ...

    def completed(self) -> Completed:
        """The final event, or raise ProviderError("stream_cut")."""
        ...


async def run_stream(
    open_stream: Callable[[], Awaitable[Any]], state: StreamState, errors: ErrorContext
) -> AsyncIterator[StreamEvent]:
    """Open the SDK stream, yield the state's deltas, then its Completed.

    Failures before the first byte map as connection/status errors; transport
    failures after it mean the answer was cut. No SDK exception escapes.
    """
    try:
        items = await open_stream()
    except Exception as exc:
        raise map_error(exc, errors, streaming=False) from exc
    try:
        async for item in items:
            for event in state.feed(item):
                yield event
    except Exception as exc:
        raise map_error(exc, errors, streaming=True) from exc
    finally:
        await _close_quietly(items)
    yield state.completed()


async def _close_quietly(items: Any) -> None:
    try:
        await items.close()
    except Exception:  # closing an already broken stream must not hide the real error
        return
