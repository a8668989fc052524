"""Injected faults as the SDKs see them, and what the journal records."""

from __future__ import annotations

import time
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from tests.fakes import FakeServer, Reply
from tests.fakes_selftest.conftest import GPT, MODEL, user


def ask(client: Any, text: str = "hi") -> Any:
    """A non-streaming Anthropic request."""
    return client.messages.create(model=MODEL, max_tokens=100, messages=[user(text)])


def stream_text(client: Any) -> str:
    """Stream an Anthropic reply and return its text."""
    with client.messages.stream(model=MODEL, max_tokens=100, messages=[user("hi")]) as stream:
        return "".join(stream.text_stream)


def test_429_then_success_with_sdk_retry(fake: FakeServer) -> None:
    client = anthropic.Anthropic(base_url=fake.url, api_key="test", max_retries=2)
    fake.script(Reply(text="after retry"))
    fake.fail_next(status=429, retry_after_ms=10)
    started = time.monotonic()
    assert ask(client).content[0].text == "after retry"
    assert time.monotonic() - started < 2
    statuses = [(e.status, e.headers["x-stainless-retry-count"]) for e in fake.journal]
    assert statuses == [(429, "0"), (200, "1")]
    assert fake.journal[0].error and fake.journal[0].usage is None


def test_openai_retries_429_too(fake: FakeServer) -> None:
    client = openai.OpenAI(base_url=fake.url + "/v1", api_key="test", max_retries=3)
    fake.fail_next(status=429, retry_after_ms=10, times=2)
    response = client.chat.completions.create(model=GPT, messages=[user("x")])
    assert response.choices[0].message.content == "(fake) You said: x"
    assert [e.status for e in fake.journal] == [429, 429, 200]


def test_retry_headers_and_error_shape(fake: FakeServer) -> None:
    fake.fail_next(status=429, retry_after_ms=1500, should_retry=False, message="slow down")
    headers = {"authorization": "Bearer k"}
    body = {"model": GPT, "messages": [user("a")]}
    response = httpx2.post(fake.url + "/v1/chat/completions", json=body, headers=headers)
    assert response.status_code == 429
    assert response.headers["retry-after-ms"] == "1500" and response.headers["retry-after"] == "2"
    assert response.headers["x-should-retry"] == "false"
    assert response.json()["error"] == {
        "message": "slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }


def test_529_is_overloaded_error(fake: FakeServer, anthropic_client: Any) -> None:
    fake.fail_next(status=529)
    with pytest.raises(anthropic.OverloadedError):
        ask(anthropic_client)
    assert ask(anthropic_client).content  # only one failure


def test_error_event_mid_stream(fake: FakeServer, anthropic_client: Any) -> None:
    fake.script(Reply(text="a long enough answer to stream"))
    fake.error_next_stream(after_events=4)
    with pytest.raises(anthropic.APIStatusError) as info:
        stream_text(anthropic_client)
    assert info.value.status_code == 200 and info.value.type == "overloaded_error"
    assert stream_text(anthropic_client) == "a long enough answer to stream"  # reply was kept


def test_openai_error_frame_mid_stream(fake: FakeServer, openai_client: Any) -> None:
    fake.error_next_stream(after_events=2, type="server_error", message="boom")
    with pytest.raises(openai.APIError, match="boom"):
        list(openai_client.chat.completions.create(model=GPT, messages=[user("a")], stream=True))


def test_cut_stream_raises_in_both_sdks(fake: FakeServer, anthropic_client: Any) -> None:
    fake.cut_next_stream(after_events=3)
    with pytest.raises(httpx2.RemoteProtocolError):  # anthropic 2.12 lets it through unwrapped
        stream_text(anthropic_client)
    assert fake.journal[-1].error == "stream cut after 3 events"
    client = openai.OpenAI(base_url=fake.url + "/v1", api_key="test", max_retries=0)
    fake.cut_next_stream(after_events=1)
    stream = client.chat.completions.create(model=GPT, messages=[user("a")], stream=True)
    with pytest.raises(openai.APIConnectionError):  # openai wraps the transport error
        list(stream)


def test_journal_contents(fake: FakeServer, anthropic_client: Any, openai_client: Any) -> None:
    ask(anthropic_client, "one")
    openai_client.chat.completions.create(model=GPT, messages=[user("two")])
    first, second = fake.journal
    assert (first.api, first.path, first.status, first.error) == (
        "anthropic",
        "/v1/messages",
        200,
        None,
    )
    assert first.headers["authorization"] == "Bearer test"
    assert first.body["messages"] == [user("one")]
    assert first.usage is not None and first.usage["output_tokens"] >= 1
    assert (second.api, second.path) == ("openai", "/v1/chat/completions")
    assert second.usage is not None and second.usage["prompt_tokens"] > 0
    assert [r["messages"][0]["content"] for r in fake.requests] == ["one", "two"]


def test_bad_json_and_unknown_path_are_clear(fake: FakeServer) -> None:
    headers = {"x-api-key": "k", "content-type": "application/json"}
    response = httpx2.post(fake.url + "/v1/messages", content=b"{nope", headers=headers)
    assert response.status_code == 400 and "not valid JSON" in response.json()["error"]["message"]
    response = httpx2.post(fake.url + "/chat/completions", json={}, headers=headers)
    assert response.status_code == 404 and "must end in /v1" in response.json()["error"]["message"]


def test_extra_headers_such_as_a_bare_retry_after(fake: FakeServer) -> None:
    fake.fail_next(status=429, retry_after_ms=None, headers={"retry-after": "3600"})
    response = httpx2.post(fake.url + "/v1/messages", json={}, headers={"x-api-key": "k"})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3600" and "retry-after-ms" not in response.headers
