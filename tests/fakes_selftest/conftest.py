"""Fixtures for the fake server's own tests: a running fake and SDK clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes import FakeServer

MODEL = "claude-sonnet-5"
GPT = "gpt-4o"


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    """A running FakeServer, stopped after the test."""
    with FakeServer() as server:
        yield server


@pytest.fixture(scope="session")
def shared_http() -> Iterator[Any]:
    """One HTTP client for every test (building an SSL context per client costs ~60 ms)."""
    import anthropic

    with anthropic.DefaultHttpxClient() as client:
        yield client


@pytest.fixture
def anthropic_client(fake: FakeServer, shared_http: Any) -> Any:
    """A sync Anthropic client without retries."""
    import anthropic

    return anthropic.Anthropic(
        base_url=fake.url, api_key="test", max_retries=0, http_client=shared_http
    )


@pytest.fixture
def openai_client(fake: FakeServer, shared_http: Any) -> Any:
    """A sync OpenAI client without retries."""
    import openai

    return openai.OpenAI(
        base_url=fake.url + "/v1", api_key="test", max_retries=0, http_client=shared_http
    )


def user(text: str) -> dict[str, Any]:
    """A user message."""
    return {"role": "user", "content": text}


def as_params(message: Any) -> dict[str, Any]:
    """An SDK Message turned back into an assistant message param (blocks unchanged)."""
    return {
        "role": "assistant",
        "content": [b.model_dump(exclude_none=True) for b in message.content],
    }


def error_text(exc: Any) -> str:
    """The server's error message inside an SDK APIStatusError (both SDKs)."""
    body = exc.body
    error = body.get("error", body) if isinstance(body, dict) else {}
    return str(error.get("message", ""))
