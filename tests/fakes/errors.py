"""Error responses in each API's real JSON shape (protocol.md A7 and C)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ANTHROPIC_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

#: OpenAI (type, code) per status; anything unlisted >= 500 is a server_error.
OPENAI_ERROR_TYPES: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    409: ("invalid_request_error", "conflict"),
    422: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
}

DEFAULT_MESSAGES: dict[int, str] = {
    400: "Invalid request.",
    401: "Invalid API key.",
    403: "Permission denied.",
    404: "Not found.",
    408: "Request timed out.",
    409: "Conflict.",
    429: "Rate limit exceeded. Please retry after the time in the retry-after header.",
    500: "Internal server error.",
    503: "Service unavailable.",
    504: "Gateway timeout.",
    529: "Overloaded",
}


@dataclass
class WireError(Exception):
    """A request the fake rejects: HTTP status plus the fields both error shapes need."""

    status: int
    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    """Fields a server adds to its error object (llama-server's ``n_ctx``)."""

    def __str__(self) -> str:
        return f"{self.status}: {self.message}"


def bad_request(message: str, *, code: str | None = None, param: str | None = None) -> WireError:
    """Shortcut for a 400 invalid_request_error."""
    return WireError(400, message, code=code, param=param)


def default_message(status: int) -> str:
    """A plausible error message for ``status``."""
    return DEFAULT_MESSAGES.get(status, "Internal server error." if status >= 500 else "Error.")


def anthropic_error_type(err: WireError) -> str:
    """The Anthropic ``error.type`` for this error."""
    if err.type:
        return err.type
    return ANTHROPIC_ERROR_TYPES.get(err.status, "api_error")


def anthropic_error_body(err: WireError, request_id: str) -> dict[str, Any]:
    """``{"type":"error","error":{type,message},"request_id"}``."""
    return {
        "type": "error",
        "error": {"type": anthropic_error_type(err), "message": err.message},
        "request_id": request_id,
    }


def openai_error_body(err: WireError) -> dict[str, Any]:
    """``{"error":{message,type,param,code}}``."""
    default_type, default_code = OPENAI_ERROR_TYPES.get(
        err.status, ("server_error", None) if err.status >= 500 else ("invalid_request_error", None)
    )
    error: dict[str, Any] = {
        "message": err.message,
        "type": err.type or default_type,
        "param": err.param,
        "code": err.code or default_code,
    }
    return {"error": {**error, **err.extra}}
