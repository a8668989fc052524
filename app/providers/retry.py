"""lull's own retries of a request that failed before its answer started.

The SDKs are built with ``max_retries=0`` (``sdk.py``) so that every wait is lull's: the
provider yields a :class:`~lull.model.provider.Retrying` event before each one (the engine
shows those longer than a couple of seconds), and a few failures stop at once instead of
being retried in silence:

* a server that asks for a wait longer than :data:`LONGEST_WAIT_SECONDS` (``retry-after:
  3600``) stops the turn with "rate limited; retry after HH:MM (N min)";
* a refused connection to a loopback address (nothing listens on that port) fails at once;
* an HTTP 500 that comes back identical to the previous attempt's says what the server said
  (waiting will not change it).

Everything else follows the SDKs' own policy: retry 408, 409, 429 and 5xx (unless the
server sends ``x-should-retry: false``) and connection failures, honour ``retry-after-ms`` /
``retry-after``, else back off exponentially (0.5 s doubling up to 8 s, with jitter).
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lull.model.provider import ProviderError, Retrying
from lull.providers.errors import (
    ErrorContext,
    connection_refused,
    map_error,
    repeated_error,
    retry_later_error,
    status_signature,
)

LONGEST_WAIT_SECONDS = 60.0
INITIAL_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 8.0
_RETRY_STATUSES = frozenset({408, 409, 429})
_TIME_ONLY_SECONDS = 20 * 3600  # nearer than this, HH:MM is unambiguous


@dataclass(frozen=True)
class RetryTiming:
    """Where waits come from: ``sleep``, the wall clock (for "retry after HH:MM") and the
    jitter source; tests inject their own."""

    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    now: Callable[[], float] = time.time
    jitter: Callable[[], float] = random.random


Signature = tuple[int, str, str, str] | None


def plan_retry(
    exc: BaseException, attempt: int, previous: Signature, ctx: ErrorContext, timing: RetryTiming
) -> Retrying | ProviderError:
    """What to do after attempt number ``attempt`` (0 = the first) failed with ``exc``: wait
    and retry (a :class:`Retrying`), or give up with this error. ``previous`` is the
    :func:`status_signature` of the attempt before, if there was one."""
    error = map_error(exc, ctx, streaming=False, retries=attempt)
    if not _worth_retrying(exc, error, ctx):
        return error
    signature = status_signature(exc)
    if signature is not None and signature[0] == 500 and signature == previous:
        return repeated_error(exc, ctx, attempt + 1)
    asked = retry_after_seconds(exc)
    if asked is not None and asked > LONGEST_WAIT_SECONDS:
        return retry_later_error(exc, ctx, asked, clock_time(timing.now() + asked, timing.now()))
    if attempt >= ctx.max_retries:
        return error
    wait = asked if asked is not None and asked > 0 else backoff(attempt, timing.jitter())
    reason = map_error(exc, ctx, streaming=False, retries=0).message.split(". ")[0]
    return Retrying(reason, wait, attempt + 1, ctx.max_retries)


def backoff(attempt: int, jitter: float) -> float:
    """The SDKs' exponential backoff: 0.5 s doubling per retry up to 8 s, less up to 25 %."""
    return min(INITIAL_BACKOFF_SECONDS * 2.0**attempt, MAX_BACKOFF_SECONDS) * (1 - 0.25 * jitter)


def retry_after_seconds(exc: BaseException) -> float | None:
    """The wait a failed response asks for (``retry-after-ms``, then ``retry-after`` as
    seconds or an HTTP date), or None."""
    headers = _headers(exc)
    if headers is None:
        return None
    try:
        return float(headers.get("retry-after-ms")) / 1000
    except (TypeError, ValueError):
        pass
    value = headers.get("retry-after")
    try:
        return float(value)
    except (TypeError, ValueError):
        pass
    parsed = email.utils.parsedate_tz(value) if isinstance(value, str) else None
    return None if parsed is None else float(email.utils.mktime_tz(parsed) - time.time())


def clock_time(at: float, now: float) -> str:
    """``at`` as local wall-clock time: "14:05", with the date when it is not within a day."""
    pattern = "%H:%M" if at - now < _TIME_ONLY_SECONDS else "%Y-%m-%d %H:%M"
    return time.strftime(pattern, time.localtime(at))


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _worth_retrying(exc: BaseException, error: ProviderError, ctx: ErrorContext) -> bool:
    headers = _headers(exc)
    told = headers.get("x-should-retry") if headers is not None else None
    if told in ("true", "false"):
        return bool(told == "true")
    if error.kind == "connection":
        return not (connection_refused(exc) and is_loopback(ctx.base_url))
    status = error.status
    return status is not None and (status in _RETRY_STATUSES or status >= 500)


def _headers(exc: BaseException) -> Any:
    """The response headers behind an SDK status error, or None."""
    response = getattr(exc, "response", None)
    return getattr(response, "headers", None)
