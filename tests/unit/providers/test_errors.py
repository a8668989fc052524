"""SDK exceptions -> one-line ProviderError messages a user can act on."""

from __future__ import annotations

import functools
import socket
from typing import Any

import pytest

from lull.model.messages import user_text
from lull.model.provider import ModelRequest, ProviderError
from lull.providers.config import ProviderConfig, create_provider
from lull.providers.errors import ErrorContext, error_context, map_error

ANTHROPIC = ErrorContext(
    "Anthropic", "https://api.anthropic.com", "claude-x", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"
)
OPENAI = ErrorContext(
    "OpenAI", "https://api.openai.com/v1", "gpt-x", "OPENAI_API_KEY", "OPENAI_BASE_URL"
)


@functools.cache
def sdk_clients() -> tuple[Any, Any]:
    import anthropic
    import openai

    return anthropic.Anthropic(api_key="k"), openai.OpenAI(api_key="k")


def anthropic_status(status: int, etype: str, message: str) -> Exception:
    import httpx2

    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx2.Response(status, request=request)
    body = {"type": "error", "error": {"type": etype, "message": message}}
    client = sdk_clients()[0]
    error: Exception = client._make_status_error(f"{body}", body=body, response=response)
    return error


def openai_status(status: int, message: str, etype: str = "", code: str | None = None) -> Exception:
    import httpx2

    request = httpx2.Request("POST", "https://api.openai.com/v1/chat/completions")
    response = httpx2.Response(status, request=request)
    body = {"error": {"message": message, "type": etype, "code": code, "param": None}}
    client = sdk_clients()[1]
    error: Exception = client._make_status_error(
        f"Error code: {status}", body=body["error"], response=response
    )
    return error


def mapped(exc: Exception, ctx: ErrorContext = ANTHROPIC, streaming: bool = False) -> ProviderError:
    error = map_error(exc, ctx, streaming=streaming)
    assert "\n" not in error.message
    return error


def test_anthropic_401() -> None:
    error = mapped(anthropic_status(401, "authentication_error", "invalid x-api-key"))
    assert error.kind == "auth"
    assert error.status == 401
    assert error.message == (
        "Anthropic rejected the API key (401 authentication_error). Check ANTHROPIC_API_KEY."
    )


def test_openai_401_names_openai_key() -> None:
    error = mapped(
        openai_status(401, "Incorrect API key", "invalid_request_error", "invalid_api_key"), OPENAI
    )
    assert error.kind == "auth"
    assert "Check OPENAI_API_KEY." in error.message


def test_404_model() -> None:
    error = mapped(anthropic_status(404, "not_found_error", "model: claude-x"))
    assert error.kind == "not_found"
    assert error.message == (
        "model 'claude-x' was not found at https://api.anthropic.com (404). "
        "Check --model / model.name."
    )


@pytest.mark.parametrize(
    "exc_factory",
    [
        lambda: anthropic_status(
            400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
        ),
        lambda: openai_status(
            400,
            "This model's maximum context length is 128000 tokens.",
            "invalid_request_error",
            "context_length_exceeded",
        ),
        lambda: openai_status(
            400, "Invalid request: Your request exceeded model token limit: 262144"
        ),
    ],
)
def test_prompt_too_long(exc_factory: Any) -> None:
    error = mapped(exc_factory())
    assert error.kind == "prompt_too_long"
    assert "/compact" in error.message


def test_other_400_carries_the_server_message() -> None:
    error = mapped(
        anthropic_status(400, "invalid_request_error", "messages.1: tool_use ids must be unique")
    )
    assert error.kind == "bad_request"
    assert error.message == (
        "Anthropic rejected the request (400 invalid_request_error): "
        "messages.1: tool_use ids must be unique"
    )


def test_rate_limit_overloaded_server() -> None:
    rate = mapped(anthropic_status(429, "rate_limit_error", "slow down"))
    assert rate.kind == "rate_limit"
    assert "after 2 retries" in rate.message and "retry later" in rate.message
    over = mapped(anthropic_status(529, "overloaded_error", "Overloaded"))
    assert over.kind == "overloaded"
    assert (
        over.message
        == "Anthropic is overloaded (529 overloaded_error) after 2 retries. Try again in a moment."
    )
    server = mapped(openai_status(500, "boom", "server_error"), OPENAI)
    assert (server.kind, server.status) == ("server", 500)


def test_quota_billing_permission() -> None:
    assert (
        mapped(openai_status(429, "quota", "insufficient_quota", "insufficient_quota"), OPENAI).kind
        == "billing"
    )
    assert mapped(anthropic_status(402, "billing_error", "no credit")).kind == "billing"
    denied = mapped(anthropic_status(403, "permission_error", "nope"))
    assert denied.kind == "permission" and "model 'claude-x'" in denied.message


def test_mid_stream_error_event_is_overloaded_not_retried() -> None:
    event = anthropic_status(200, "overloaded_error", "Overloaded")
    error = mapped(event, streaming=True)
    assert error.kind == "overloaded"
    assert "retries" not in error.message
    assert "in the stream" in error.message


def test_openai_mid_stream_error_frame() -> None:
    import httpx2
    import openai

    request = httpx2.Request("POST", "https://api.openai.com/v1/chat/completions")
    exc = openai.APIError(
        "boom", request, body={"message": "upstream failed", "type": "server_error"}
    )
    error = mapped(exc, OPENAI, streaming=True)
    assert error.kind == "server"
    assert "upstream failed" in error.message


def test_transport_error_after_bytes_is_a_cut_stream() -> None:
    import httpx2

    error = mapped(httpx2.RemoteProtocolError("peer closed connection"), streaming=True)
    assert error.kind == "stream_cut"
    assert error.message == (
        "the connection dropped in the middle of the answer; the partial answer was discarded"
    )


def test_connection_error_causes() -> None:
    import httpx2
    import openai

    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    exc = openai.APIConnectionError(request=request)
    exc.__cause__ = socket.gaierror(-2, "Name or service not known")
    ctx = ErrorContext(
        "the server", "http://nowhere:9/v1", "m", "OPENAI_API_KEY", "OPENAI_BASE_URL"
    )
    error = mapped(exc, ctx)
    assert error.kind == "connection"
    assert error.message.startswith("could not reach http://nowhere:9/v1: host name not found")


def test_timeout() -> None:
    import anthropic
    import httpx2

    exc = anthropic.APITimeoutError(httpx2.Request("POST", "https://api.anthropic.com/v1/messages"))
    error = mapped(exc)
    assert error.kind == "timeout"
    assert error.message == (
        "Anthropic sent nothing for 300 s at https://api.anthropic.com (model.timeoutSeconds). "
        "Check the server; a slow local model may need a larger model.timeoutSeconds in "
        "settings.json."
    )


def test_connect_timeout_and_stalled_stream() -> None:
    import anthropic
    import httpx2

    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    exc = anthropic.APITimeoutError(request)
    exc.__cause__ = httpx2.ConnectTimeout("timed out")
    connect = mapped(exc)
    assert connect.kind == "connection"
    assert connect.message.startswith("could not connect to https://api.anthropic.com within 10 s")
    stalled = mapped(httpx2.ReadTimeout("timed out"), streaming=True)
    assert stalled.kind == "timeout"
    assert "stopped sending for 300 s in the middle of the answer" in stalled.message
    assert "model.timeoutSeconds" in stalled.message


def test_unknown_exception_is_still_a_provider_error() -> None:
    error = mapped(ValueError("bad\nthing"))
    assert error.kind == "bad_request"
    assert error.message == "the Anthropic client failed: ValueError: bad thing"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_connection_refused_for_real(provider: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    vendor = "anthropic" if provider == "anthropic" else "generic"
    config = ProviderConfig(provider, "m", "k", url, vendor, max_retries=0)  # type: ignore[arg-type]
    model = create_provider(config)
    with pytest.raises(ProviderError) as info:
        async for _ in model.stream(ModelRequest(system="", messages=[user_text("hi")])):
            pass
    await model.aclose()
    env = "ANTHROPIC_BASE_URL" if provider == "anthropic" else "OPENAI_BASE_URL"
    assert info.value.kind == "connection"
    assert info.value.message == (
        f"could not reach {url}: connection refused. Is the server running / {env} right?"
    )


def test_error_context_names_vendor() -> None:
    config = ProviderConfig("openai", "deepseek-chat", "k", "https://api.deepseek.com", "deepseek")
    ctx = error_context(config)
    assert (ctx.service, ctx.key_env, ctx.base_url) == (
        "DeepSeek",
        "OPENAI_API_KEY",
        "https://api.deepseek.com",
    )
    generic = error_context(ProviderConfig("openai", "m", None, "http://box:8000/v1", "generic"))
    assert generic.service == "the server at http://box:8000/v1"


def test_request_too_large_is_prompt_too_long() -> None:
    error = mapped(anthropic_status(413, "request_too_large", "Request exceeds 32 MB"))
    assert error.kind == "prompt_too_long"


def test_retry_count_comes_from_the_last_attempt() -> None:
    import httpx2

    exc = anthropic_status(429, "rate_limit_error", "slow down")
    request = httpx2.Request(
        "POST", "https://api.anthropic.com/v1/messages", headers={"x-stainless-retry-count": "0"}
    )
    exc.response = httpx2.Response(429, request=request)  # type: ignore[attr-defined]
    error = mapped(exc)
    assert error.kind == "rate_limit"
    assert error.message == (
        "Anthropic rate limit reached (429 rate_limit_error): slow down. "
        "Wait a minute and retry later."
    )
