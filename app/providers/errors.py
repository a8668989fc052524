"""Turn SDK and transport exceptions into one-line :class:`ProviderError` values.

Both official SDKs share their exception class names (``APIStatusError``,
``APIConnectionError``, ``APITimeoutError`` …), so mapping works on the class
names in the exception's MRO and never imports an SDK.
"""

from __future__ import annotations

import math
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lull.model import defaults
from lull.model.provider import ErrorKind, ProviderError
from lull.providers.config import CONNECT_TIMEOUT_SECONDS, ProviderConfig

STREAM_CUT_MESSAGE = (
    "the connection dropped in the middle of the answer; the partial answer was discarded"
)
TIMEOUT_SETTING = "model.timeoutSeconds"

_SERVICE_NAMES: dict[str, str] = {
    "anthropic": "Anthropic",
    "openai": "OpenAI",
    "deepseek": "DeepSeek",
    "deepseek-legacy": "DeepSeek",
    "kimi": "Kimi (Moonshot)",
    "qwen": "Qwen (DashScope)",
    "vllm": "the vLLM server",
    "sglang": "the SGLang server",
    "ollama": "Ollama",
}

# Error ``type`` values (Anthropic) that stand for an HTTP status when they
# arrive inside an HTTP 200 stream.
_TYPE_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

_STATUS_KINDS: dict[int, ErrorKind] = {
    400: "bad_request",
    422: "bad_request",
    401: "auth",
    403: "permission",
    404: "not_found",
    408: "timeout",
    504: "timeout",
    429: "rate_limit",
}

# One line per kind; fields: service, model, base_url, key_env, label, detail, retried.
_TEMPLATES: dict[ErrorKind, str] = {
    "prompt_too_long": "the prompt is too long for model '{model}' ({label}{detail}). "
    "Compress the context (/compact) or start a new session.",
    "bad_request": "{service} rejected the request ({label}){detail}",
    "auth": "{service} rejected the API key ({label}). Check {key_env}.",
    "billing": "{service} refused the request for billing reasons ({label}){detail}. "
    "Check your plan and credits.",
    "permission": "{service} denied access ({label}){detail}. "
    "Check that the API key may use model '{model}'.",
    "not_found": "model '{model}' was not found at {base_url} (404). Check --model / model.name.",
    "timeout": "{service} timed out ({label}){retried}{detail}. Try again.",
    "rate_limit": "{service} rate limit reached ({label}){retried}{detail}. "
    "Wait a minute and retry later.",
    "overloaded": "{service} is overloaded ({label}){retried}. Try again in a moment.",
    "server": "{service} server error ({label}){retried}{detail}. Try again later.",
}

_TOO_LONG_HINTS = (
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "input is too long",
    "exceeded model token limit",
    "too many input tokens",
    "exceeds the available context size",  # llama.cpp's llama-server
    "exceed_context_size",
    "exceed context window",  # llama-cpp-python
)


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """What an error message needs to name: the service, URL, model and env vars."""

    service: str
    base_url: str
    model: str
    key_env: str
    base_url_env: str
    max_retries: int = 2
    timeout_seconds: float = defaults.TIMEOUT_SECONDS
    connect_timeout_seconds: float = CONNECT_TIMEOUT_SECONDS


def error_context(config: ProviderConfig) -> ErrorContext:
    """The :class:`ErrorContext` for a provider built from ``config``."""
    url = config.effective_base_url
    service = _SERVICE_NAMES.get(config.vendor, f"the server at {url}")
    prefix = "ANTHROPIC" if config.provider == "anthropic" else "OPENAI"
    return ErrorContext(
        service=service,
        base_url=url,
        model=config.model,
        key_env=f"{prefix}_API_KEY",
        base_url_env=f"{prefix}_BASE_URL",
        max_retries=config.max_retries,
        timeout_seconds=config.timeout_seconds,
        connect_timeout_seconds=config.connect_timeout_seconds,
    )


def stream_cut_error() -> ProviderError:
    """The error for a stream that ended before its terminating event."""
    return ProviderError("stream_cut", STREAM_CUT_MESSAGE)


def empty_stream_error(ctx: ErrorContext) -> ProviderError:
    """The error for a stream that answered 200 and then ended without sending anything."""
    return ProviderError(
        "empty_stream",
        f"{ctx.service} answered 200 OK with an empty stream (no data at all; local servers "
        "do this when the prompt does not fit their context)",
    )


def map_error(
    exc: BaseException, ctx: ErrorContext, *, streaming: bool, retries: int | None = None
) -> ProviderError:
    """The :class:`ProviderError` for ``exc``.

    ``streaming`` is True once the response started arriving: a transport
    failure then means the answer was cut, not that the server is unreachable.
    ``retries`` is how many retries were made before this failure (None: read the
    SDK's retry-count header).
    """
    if isinstance(exc, ProviderError):
        return exc
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "APIStatusError" in names:
        status = int(getattr(exc, "status_code", 0) or 0)
        etype, code, message = _error_fields(exc)
        taken = _retries_taken(exc, ctx.max_retries) if retries is None else retries
        return from_status(
            status, etype, code, message, ctx, mid_stream=status == 200, retries=taken
        )
    if "APITimeoutError" in names or _is_timeout(exc):
        return _timeout_error(exc, ctx, streaming=streaming)
    if "APIConnectionError" in names or _is_transport(exc):
        if streaming:
            return stream_cut_error()
        return _connection_error(exc, ctx)
    if "APIError" in names:
        etype, code, message = _error_fields(exc)
        return from_status(0, etype, code, message, ctx, mid_stream=True)
    text = _one_line(str(exc)) or type(exc).__name__
    client = (
        f"the client for {ctx.service}"
        if _has_article(ctx.service)
        else (f"the {ctx.service} client")
    )
    return ProviderError("bad_request", f"{client} failed: {type(exc).__name__}: {text}")


def status_signature(exc: BaseException) -> tuple[int, str, str, str] | None:
    """(status, type, code, message) of an HTTP error response, None for anything else: two
    failures with the same signature are the server answering the same way."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "APIStatusError" not in names:
        return None
    return (int(getattr(exc, "status_code", 0) or 0), *_error_fields(exc))


def repeated_error(exc: BaseException, ctx: ErrorContext, attempts: int) -> ProviderError:
    """The error for a server error that came back identically on every attempt: it says
    what the server said, and that waiting will not change it."""
    status, etype, code, message = status_signature(exc) or (0, "", "", str(exc))
    label = _label(status, etype or code, False)
    detail = f": {message}" if message else ""
    return ProviderError(
        "server",
        f"{ctx.service} failed the same way {attempts} times ({label}){detail}. The same "
        "request fails identically, so it is likely what the server cannot handle (its log "
        "may say more); waiting will not change it.",
        status=status or None,
    )


def retry_later_error(
    exc: BaseException, ctx: ErrorContext, wait_seconds: float, resume_at: str
) -> ProviderError:
    """The error for a server that asked for a wait too long to sit through (``resume_at``
    is the local time it names, e.g. "14:05")."""
    status, etype, code, message = status_signature(exc) or (429, "", "", "")
    minutes = max(1, math.ceil(wait_seconds / 60))
    what = "rate limited" if status == 429 else "unavailable"
    detail = f": {message}" if message else ""
    kind: ErrorKind = "rate_limit" if status == 429 else _kind(status, etype, code, message)
    return ProviderError(
        kind,
        f"{what}; retry after {resume_at} ({minutes} min). {ctx.service} asked to wait "
        f"{wait_seconds:.0f} s ({_label(status, etype or code, False)}){detail}",
        status=status or None,
    )


def from_status(
    status: int,
    etype: str,
    code: str,
    message: str,
    ctx: ErrorContext,
    *,
    mid_stream: bool = False,
    retries: int | None = None,
) -> ProviderError:
    """The error for an HTTP ``status`` (or an error event's ``etype`` inside a stream).

    ``retries`` is how many retries the SDK made before giving up (default:
    the configured maximum).
    """
    if mid_stream or status < 400:
        status = _TYPE_STATUS.get(etype, 500)
    taken = ctx.max_retries if retries is None else retries
    kind = _kind(status, etype, code, message)
    text = _TEMPLATES[kind].format(
        service=ctx.service,
        model=ctx.model,
        base_url=ctx.base_url,
        key_env=ctx.key_env,
        label=_label(status, etype or code, mid_stream),
        detail=f": {message}" if message else "",
        retried=f" after {_plural(taken, 'retry', 'retries')}" if taken and not mid_stream else "",
    )
    return ProviderError(kind, text, status=None if mid_stream else status)


def _kind(status: int, etype: str, code: str, message: str) -> ErrorKind:
    """The error kind for a status (after mapping stream error types to statuses)."""
    if status == 413 or (status in (400, 422) and _too_long(message, f"{code} {etype}")):
        return "prompt_too_long"
    if status == 402 or code == "insufficient_quota":
        return "billing"
    if status == 529 or etype == "overloaded_error":
        return "overloaded"
    return _STATUS_KINDS.get(status, "server")


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _retries_taken(exc: BaseException, default: int) -> int:
    """Retries the SDK made: the retry-count header of the last attempt it sent."""
    response = getattr(exc, "response", None)
    request = getattr(response, "request", None)
    headers = getattr(request, "headers", None)
    try:
        return int(headers.get("x-stainless-retry-count")) if headers is not None else default
    except (TypeError, ValueError):
        return default


def _label(status: int, etype: str, mid_stream: bool) -> str:
    if mid_stream:
        return f"error event {etype} in the stream" if etype else "error event in the stream"
    return f"{status} {etype}" if etype else str(status)


def _too_long(message: str, code: str) -> bool:
    text = f"{message} {code}".lower()
    return any(hint in text for hint in _TOO_LONG_HINTS)


def _error_fields(exc: BaseException) -> tuple[str, str, str]:
    """(type, code, message) from an SDK error's body, whichever SDK produced it."""
    body: Any = getattr(exc, "body", None)
    error: Any = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping):
        error = body if isinstance(body, Mapping) else {}
    etype = str(error.get("type") or getattr(exc, "type", None) or "")
    code = str(error.get("code") or "")
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = getattr(exc, "message", None) or str(exc)
    return etype, code, _one_line(str(message))


def _is_timeout(exc: BaseException) -> bool:
    return any(
        cls.__name__ in ("TimeoutException", "ReadTimeout", "ConnectTimeout")
        for cls in type(exc).__mro__
    )


def _is_transport(exc: BaseException) -> bool:
    if isinstance(exc, OSError | EOFError):
        return True
    return any(
        cls.__module__.startswith("httpx") and cls.__name__ in ("TransportError", "HTTPError")
        for cls in type(exc).__mro__
    )


def _timeout_error(exc: BaseException, ctx: ErrorContext, *, streaming: bool) -> ProviderError:
    """A connect timeout, a server silent past ``model.timeoutSeconds``, or a stalled stream."""
    if _caused_by(exc, "ConnectTimeout"):
        return ProviderError(
            "connection",
            f"could not connect to {ctx.base_url} within {ctx.connect_timeout_seconds:g} s. "
            f"Is the server running / {ctx.base_url_env} right? Check the network.",
        )
    if streaming:
        return ProviderError(
            "timeout",
            f"{ctx.service} stopped sending for {ctx.timeout_seconds:g} s in the middle of the "
            f"answer ({TIMEOUT_SETTING}); the partial answer was discarded. Try again, or raise "
            f"{TIMEOUT_SETTING} for a slow model.",
        )
    return ProviderError(
        "timeout",
        f"{ctx.service} sent nothing for {ctx.timeout_seconds:g} s at {ctx.base_url} "
        f"({TIMEOUT_SETTING}). Check the server; a slow local model may need a larger "
        f"{TIMEOUT_SETTING} in settings.json.",
    )


def _caused_by(exc: BaseException, class_name: str) -> bool:
    """Whether ``exc`` or anything in its cause chain is of a class named ``class_name``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if any(cls.__name__ == class_name for cls in type(current).__mro__):
            return True
        current = current.__cause__ or current.__context__
    return False


def _has_article(service: str) -> bool:
    """Whether a service name already starts with "the" ("the server at …", "the vLLM …")."""
    return service.lower().startswith("the ")


def _connection_error(exc: BaseException, ctx: ErrorContext) -> ProviderError:
    cause = _root_cause(exc)
    where = f"could not reach {ctx.base_url}"
    if isinstance(cause, ConnectionRefusedError):
        text = f"{where}: connection refused. Is the server running / {ctx.base_url_env} right?"
    elif isinstance(cause, socket.gaierror):
        text = (
            f"{where}: host name not found. Check {ctx.base_url_env} / --base-url and the network."
        )
    elif isinstance(cause, ssl.SSLError):
        text = (
            f"{where}: TLS error ({_one_line(str(cause))}). Check http:// vs https:// in the URL."
        )
    else:
        reason = _one_line(str(cause)) or type(cause).__name__
        text = f"{where}: {reason}. Check the network and {ctx.base_url_env}."
    return ProviderError("connection", text)


def connection_refused(exc: BaseException) -> bool:
    """Whether ``exc`` comes from a refused connection (nothing listens on that port)."""
    return isinstance(_root_cause(exc), ConnectionRefusedError)


def is_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` is a timeout (the SDK's, or the HTTP library's under it)."""
    return _is_timeout(exc) or any(c.__name__ == "APITimeoutError" for c in type(exc).__mro__)


def _root_cause(exc: BaseException) -> BaseException:
    """The innermost cause; a known low-level one (refused, DNS, TLS) wins early."""
    seen: set[int] = set()
    current: BaseException | None = exc
    last = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | socket.gaierror | ssl.SSLError):
            return current
        last = current
        current = current.__cause__ or current.__context__
    return last


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
