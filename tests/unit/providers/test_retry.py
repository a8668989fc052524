"""lull's retry policy on SDK exceptions built by hand (no network)."""

from __future__ import annotations

import email.utils
import functools
import time
from typing import Any

import httpx2
import pytest

from lull.model.provider import ProviderError, Retrying
from lull.providers.errors import ErrorContext
from lull.providers.retry import (
    RetryTiming,
    backoff,
    clock_time,
    is_loopback,
    plan_retry,
    retry_after_seconds,
)

URL = "https://api.anthropic.com"
CTX = ErrorContext("Anthropic", URL, "claude-x", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")
STEADY = RetryTiming(now=lambda: 1_700_000_000.0, jitter=lambda: 0.0)


@functools.cache
def client() -> Any:
    import anthropic

    return anthropic.Anthropic(api_key="k")


def status_error(status: int, headers: dict[str, str] | None = None, message: str = "m") -> Any:
    request = httpx2.Request("POST", URL + "/v1/messages")
    response = httpx2.Response(status, request=request, headers=headers or {})
    body = {"type": "error", "error": {"type": "api_error", "message": message}}
    return client()._make_status_error(str(body), body=body, response=response)


def test_retry_after_headers() -> None:
    assert retry_after_seconds(status_error(429, {"retry-after-ms": "1500"})) == 1.5
    assert retry_after_seconds(status_error(429, {"retry-after": "20"})) == 20.0
    later = email.utils.formatdate(time.time() + 120, usegmt=True)
    date = retry_after_seconds(status_error(429, {"retry-after": later}))
    assert date is not None and 100 < date <= 120
    assert retry_after_seconds(status_error(429)) is None
    assert retry_after_seconds(ValueError("no response")) is None


def test_backoff_doubles_up_to_eight_seconds_with_jitter() -> None:
    assert [backoff(n, 0.0) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff(0, 1.0) == 0.375


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://127.8.9.1/v1", True),
        ("http://box.local:8000/v1", False),
        ("https://api.openai.com/v1", False),
    ],
)
def test_loopback(url: str, local: bool) -> None:
    assert is_loopback(url) is local


def test_clock_time_adds_the_date_beyond_a_day() -> None:
    now = 1_700_000_000.0
    assert clock_time(now + 3600, now) == time.strftime("%H:%M", time.localtime(now + 3600))
    far = now + 2 * 86400
    assert clock_time(far, now) == time.strftime("%Y-%m-%d %H:%M", time.localtime(far))


def test_statuses_that_are_retried_and_not() -> None:
    for status in (408, 409, 429, 500, 502, 503, 529):
        assert isinstance(plan_retry(status_error(status), 0, None, CTX, STEADY), Retrying)
    for status in (400, 401, 403, 404, 413, 422):
        assert isinstance(plan_retry(status_error(status), 0, None, CTX, STEADY), ProviderError)


def test_the_server_may_say_whether_to_retry() -> None:
    never = status_error(529, {"x-should-retry": "false"})
    assert isinstance(plan_retry(never, 0, None, CTX, STEADY), ProviderError)
    always = status_error(400, {"x-should-retry": "true"})
    assert isinstance(plan_retry(always, 0, None, CTX, STEADY), Retrying)


def test_the_last_retry_gives_up_with_the_count() -> None:
    error = plan_retry(status_error(529, message="Overloaded"), 2, None, CTX, STEADY)
    assert isinstance(error, ProviderError) and error.kind == "overloaded"
    assert "after 2 retries" in error.message


def test_a_wait_the_server_asks_for_is_used_up_to_a_minute() -> None:
    step = plan_retry(status_error(429, {"retry-after": "45"}), 0, None, CTX, STEADY)
    assert isinstance(step, Retrying) and step.wait_seconds == 45.0
    assert step.reason == "Anthropic rate limit reached (429 api_error): m"
    stop = plan_retry(status_error(429, {"retry-after": "61"}), 0, None, CTX, STEADY)
    assert isinstance(stop, ProviderError) and stop.kind == "rate_limit"
    assert "rate limited; retry after" in stop.message and "(2 min)" in stop.message
    busy = plan_retry(status_error(503, {"retry-after": "600"}), 0, None, CTX, STEADY)
    assert isinstance(busy, ProviderError) and busy.message.startswith("unavailable; retry after")


def test_timeouts_read_is_final_connect_is_retried() -> None:
    import anthropic

    request = httpx2.Request("POST", URL + "/v1/messages")
    read = anthropic.APITimeoutError(request)
    read.__cause__ = httpx2.ReadTimeout("timed out")
    assert isinstance(plan_retry(read, 0, None, CTX, STEADY), ProviderError)
    connect = anthropic.APITimeoutError(request)
    connect.__cause__ = httpx2.ConnectTimeout("timed out")
    assert isinstance(plan_retry(connect, 0, None, CTX, STEADY), Retrying)


def test_only_an_identical_500_stops_early() -> None:
    first = status_error(500, message="boom")
    same = (500, "api_error", "", "boom")
    stop = plan_retry(first, 1, same, CTX, STEADY)
    assert isinstance(stop, ProviderError) and "failed the same way 2 times" in stop.message
    other = (500, "api_error", "", "a different failure")
    assert isinstance(plan_retry(first, 1, other, CTX, STEADY), Retrying)
    gateway = status_error(502, message="bad gateway")
    assert isinstance(
        plan_retry(gateway, 1, (502, "api_error", "", "bad gateway"), CTX, STEADY), Retrying
    )
