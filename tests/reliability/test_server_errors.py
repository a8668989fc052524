"""Server errors said plainly: a refused loopback connection fails at once, a 500 that
repeats identically says what the server said (500s that differ are retried as before), and
messages name the server once."""

from __future__ import annotations

import socket

import pytest

from lull.model.messages import Text
from lull.model.provider import (
    Completed,
    ProviderError,
    Retrying,
)
from lull.providers.config import ProviderConfig
from lull.providers.errors import ErrorContext, error_context, from_status, map_error
from lull.providers.retry import RetryTiming, plan_retry
from tests.fakes import FakeServer, Reply
from tests.reliability.helpers import (
    Waits,
    answer,
    local_on,
)

# --- a refused connection and repeated 500s -------------------------------------------------------


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


async def test_a_refused_connection_on_loopback_fails_at_once(waits: Waits) -> None:
    url = closed_port_url()
    provider = local_on(url, waits)  # the default 2 retries
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    assert info.value.kind == "connection"
    assert info.value.message == (
        f"could not reach {url}: connection refused. Is the server running / OPENAI_BASE_URL right?"
    )
    assert waits.slept == []


def test_a_refused_connection_elsewhere_is_still_retried() -> None:
    import httpx2
    import openai

    exc = openai.APIConnectionError(request=httpx2.Request("POST", "http://192.0.2.7:8000/v1"))
    exc.__cause__ = ConnectionRefusedError(111, "Connection refused")
    remote = ErrorContext("the server", "http://192.0.2.7:8000/v1", "m", "K", "OPENAI_BASE_URL")
    step = plan_retry(exc, 0, None, remote, RetryTiming(jitter=lambda: 0.0))
    assert isinstance(step, Retrying) and step.wait_seconds == 0.5
    local = ErrorContext("the server", "http://localhost:8000/v1", "m", "K", "OPENAI_BASE_URL")
    assert isinstance(plan_retry(exc, 0, None, local, RetryTiming()), ProviderError)


async def test_a_500_that_repeats_identically_says_what_the_server_said(
    fake: FakeServer, waits: Waits
) -> None:
    fake.fail_next(status=500, times=3, message="llama_decode failed: KV cache is full")
    provider = local_on(fake.url + "/v1", waits)
    with pytest.raises(ProviderError) as info:
        await answer(provider)
    await provider.aclose()
    message = info.value.message
    assert info.value.kind == "server" and info.value.status == 500
    assert message.startswith(
        f"the server at {fake.url}/v1 failed the same way 2 times (500 server_error): "
        "llama_decode failed: KV cache is full. "
    )
    assert "try again later" not in message.lower()
    assert len(fake.journal) == 2  # the third, identical attempt was not made


async def test_500s_that_differ_are_retried_as_before(fake: FakeServer, waits: Waits) -> None:
    fake.fail_next(status=500, message="worker restarting")
    fake.fail_next(status=503, message="loading model")
    fake.script(Reply(text="up again"))
    events = await answer(local_on(fake.url + "/v1", waits))
    assert isinstance(events[-1], Completed) and events[-1].parts == (Text("up again"),)
    assert [e.status for e in fake.journal] == [500, 503, 200]


# --- the server named once ------------------------------------------------------------------------


@pytest.mark.parametrize("vendor", ["generic", "vllm"])
def test_no_service_name_gets_a_second_the(vendor: str) -> None:
    config = ProviderConfig("openai", "m", "k", "http://box:8000/v1", vendor)  # type: ignore[arg-type]
    ctx = error_context(config)
    texts = [map_error(ValueError("odd"), ctx, streaming=False).message]
    for status in (400, 401, 402, 403, 404, 408, 413, 429, 500, 529):
        texts.append(from_status(status, "", "", "detail", ctx).message)
    assert texts[0] == f"the client for {ctx.service} failed: ValueError: odd"
    assert not [t for t in texts if "the the" in t.lower()]
