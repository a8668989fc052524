"""The fake rejects what the real Messages API rejects, with the real error shapes."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from tests.fakes import FakeServer
from tests.fakes_selftest.conftest import MODEL, error_text, user

CC = {"type": "ephemeral"}


def tool_turn(call_id: str = "toolu_a") -> dict[str, Any]:
    """An assistant message with one tool_use."""
    block = {"type": "tool_use", "id": call_id, "name": "read_file", "input": {"path": "a"}}
    return {"role": "assistant", "content": [block]}


def result_turn(call_id: str = "toolu_a", text: str | None = None) -> dict[str, Any]:
    """A user message answering ``call_id`` (plus optional trailing text)."""
    content: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": call_id, "content": "x"}
    ]
    if text:
        content.append({"type": "text", "text": text})
    return {"role": "user", "content": content}


def create(client: Any, **kwargs: Any) -> Any:
    """messages.create with defaults."""
    kwargs.setdefault("model", MODEL)
    kwargs.setdefault("max_tokens", 2000)
    return client.messages.create(**kwargs)


def test_valid_tool_loop_accepted(anthropic_client: Any) -> None:
    create(anthropic_client, messages=[user("a"), tool_turn(), result_turn(text="and then?")])


def test_unanswered_tool_use_rejected(anthropic_client: Any) -> None:
    with pytest.raises(anthropic.BadRequestError) as info:
        create(anthropic_client, messages=[user("a"), tool_turn(), user("never mind")])
    assert error_text(info.value).startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_a."
    )
    assert info.value.body["error"]["type"] == "invalid_request_error"


def test_tool_result_without_tool_use_rejected(anthropic_client: Any) -> None:
    history = [user("a"), {"role": "assistant", "content": "sure"}, result_turn("toolu_zz")]
    with pytest.raises(anthropic.BadRequestError, match=r"unexpected `tool_use_id`.*toolu_zz"):
        create(anthropic_client, messages=history)


def test_extra_tool_result_rejected(anthropic_client: Any) -> None:
    extra = result_turn("toolu_a")
    extra["content"].append({"type": "tool_result", "tool_use_id": "toolu_b", "content": "y"})
    with pytest.raises(anthropic.BadRequestError, match=r"messages\.2\.content\.1: unexpected"):
        create(anthropic_client, messages=[user("a"), tool_turn("toolu_a"), extra])


def test_tool_result_after_text_rejected(anthropic_client: Any) -> None:
    late = {"role": "user", "content": [{"type": "text", "text": "hi"}, *result_turn()["content"]]}
    with pytest.raises(anthropic.BadRequestError, match="must come first"):
        create(anthropic_client, messages=[user("a"), tool_turn(), late])


def test_same_role_turns_are_merged(anthropic_client: Any) -> None:
    create(anthropic_client, messages=[user("a"), user("b"), tool_turn(), result_turn()])


def test_five_cache_control_blocks_rejected(anthropic_client: Any) -> None:
    system = [{"type": "text", "text": f"s{i}", "cache_control": CC} for i in range(3)]
    messages = [{"role": "user", "content": [{"type": "text", "text": "q", "cache_control": CC}]}]
    with pytest.raises(anthropic.BadRequestError) as info:
        create(anthropic_client, system=system, messages=messages, cache_control=CC)
    expected = "A maximum of 4 blocks with cache_control may be provided. Found 5."
    assert error_text(info.value) == expected


def test_cache_control_on_thinking_rejected(fake: FakeServer, anthropic_client: Any) -> None:
    block = {"type": "thinking", "thinking": "t", "signature": fake.sign_thinking("t")}
    good = [user("a"), {"role": "assistant", "content": [block, {"type": "text", "text": "x"}]}]
    create(anthropic_client, messages=[*good, user("b")])
    block["cache_control"] = CC
    with pytest.raises(anthropic.BadRequestError, match=r"thinking\.cache_control"):
        create(anthropic_client, messages=[*good, user("b")])


def test_one_hour_ttl_after_five_minutes_rejected(anthropic_client: Any) -> None:
    system = [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    ]
    with pytest.raises(anthropic.BadRequestError, match=r"ttl='1h'.*must not come after"):
        create(anthropic_client, system=system, messages=[user("q")])


@pytest.mark.parametrize(
    ("budget", "max_tokens", "needle"),
    [(1000, 4000, "greater than or equal to 1024"), (4000, 4000, "must be greater than")],
)
def test_bad_thinking_budget_rejected(
    anthropic_client: Any, budget: int, max_tokens: int, needle: str
) -> None:
    with pytest.raises(anthropic.BadRequestError, match=needle):
        create(
            anthropic_client,
            max_tokens=max_tokens,
            thinking={"type": "enabled", "budget_tokens": budget},
            messages=[user("q")],
        )


def test_tool_loop_without_its_thinking_rejected_when_thinking_enabled(
    anthropic_client: Any,
) -> None:
    with pytest.raises(anthropic.BadRequestError, match="must start with a thinking block"):
        create(
            anthropic_client,
            thinking={"type": "enabled", "budget_tokens": 1024},
            messages=[user("a"), tool_turn(), result_turn()],
        )


def test_missing_fields_and_empty_text(anthropic_client: Any) -> None:
    with pytest.raises(anthropic.BadRequestError, match="non-empty"):
        create(anthropic_client, messages=[user("")])
    with pytest.raises(anthropic.BadRequestError, match="non-whitespace"):
        create(anthropic_client, messages=[user("  \n")])
    with pytest.raises(anthropic.BadRequestError, match="at least one message"):
        create(anthropic_client, messages=[])


def test_missing_auth_is_401(fake: FakeServer) -> None:
    import httpx2

    response = httpx2.post(fake.url + "/v1/messages", json={"model": MODEL})
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"
    assert response.headers["request-id"].startswith("req_")


def test_x_api_key_and_wrong_key(fake: FakeServer) -> None:
    fake.api_key = "right"
    ok = anthropic.Anthropic(base_url=fake.url, api_key="right", max_retries=0)
    create(ok, messages=[user("a")])
    import httpx2

    body = {"model": MODEL, "max_tokens": 5, "messages": [user("a")]}
    legacy = httpx2.post(fake.url + "/v1/messages", json=body, headers={"x-api-key": "right"})
    assert legacy.status_code == 200
    bad = anthropic.Anthropic(base_url=fake.url, api_key="wrong", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        create(bad, messages=[user("a")])


def test_unknown_model_is_404(fake: FakeServer, anthropic_client: Any) -> None:
    fake.models = {MODEL}
    with pytest.raises(anthropic.NotFoundError, match="model: claude-nope"):
        create(anthropic_client, model="claude-nope", messages=[user("a")])


def test_prompt_too_long(fake: FakeServer, anthropic_client: Any) -> None:
    fake.max_context_tokens = 100
    with pytest.raises(anthropic.BadRequestError) as info:
        create(anthropic_client, messages=[user("x" * 1000)])
    assert error_text(info.value).startswith("prompt is too long: ")
    assert error_text(info.value).endswith(" tokens > 100 maximum")
    assert fake.journal[-1].status == 400
