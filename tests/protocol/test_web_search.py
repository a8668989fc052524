"""web_search on Anthropic's server-side search tool, through the official SDK and the fake."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from lull.commands.usage import cost_report
from lull.model.events import ToolFinished
from lull.model.search import SearchError
from lull.providers.anthropic_search import AnthropicServerSearch
from lull.providers.config import ProviderConfig
from lull.tools.builtin.web_search import WebSearchTool
from tests.fakes import FakeServer, Reply, SearchHit, ServerSearch, ToolUse
from tests.support import AgentFactory, run, runtime_for

HITS = [
    SearchHit("lull on GitHub", "https://github.com/example/lull", "A calm coding agent."),
    SearchHit("lull docs", "https://lull.example.org/docs", "Install with pip."),
]


def config_for(fake: FakeServer) -> ProviderConfig:
    return ProviderConfig("anthropic", "claude-test", "test", fake.url, "anthropic")


@pytest.fixture
async def server_search(fake: FakeServer) -> AsyncIterator[AnthropicServerSearch]:
    """The server-side search backend on the fake (its connections closed after the test)."""
    search = AnthropicServerSearch(config_for(fake))
    yield search
    await search.aclose()


async def test_server_search_gives_title_url_and_cited_snippet(
    fake: FakeServer, server_search: AnthropicServerSearch
) -> None:
    fake.script(Reply(text="Two pages.", web_search=ServerSearch(HITS)))
    answer = await server_search.search("lull", 5, private_ok=False)
    assert [(r.title, r.url, r.snippet) for r in answer.results] == [
        (h.title, h.url, h.snippet) for h in HITS
    ]
    assert answer.summary.endswith("Two pages.")
    assert answer.usage is not None and answer.usage.input > 0 and answer.model == "claude-test"
    request = fake.requests[-1]
    assert request["tools"] == [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 1}
    ]
    assert "lull" in request["messages"][0]["content"]


async def test_allowed_domains_reach_the_server_tool(
    fake: FakeServer, server_search: AnthropicServerSearch
) -> None:
    fake.script(Reply(text="ok", web_search=ServerSearch(HITS)))
    answer = await server_search.search("lull", 5, private_ok=False, domains=["github.com"])
    assert [r.url for r in answer.results] == ["https://github.com/example/lull"]
    assert fake.requests[-1]["tools"][0]["allowed_domains"] == ["github.com"]


async def test_the_server_tools_error_is_one_line(
    fake: FakeServer, server_search: AnthropicServerSearch
) -> None:
    fake.script(Reply(text="", web_search=ServerSearch(error_code="too_many_requests")))
    with pytest.raises(SearchError, match=r"server-side search failed \(too_many_requests\)"):
        await server_search.search("lull", 5, private_ok=False)


async def test_a_refused_request_is_a_search_error(
    fake: FakeServer, server_search: AnthropicServerSearch
) -> None:
    fake.fail_next(401, message="invalid x-api-key")
    with pytest.raises(SearchError, match=r"the search request failed: .*invalid x-api-key"):
        await server_search.search("lull", 5, private_ok=False)


async def test_the_agent_searches_and_the_search_costs_count(
    fake: FakeServer, make_agent: AgentFactory, server_search: AnthropicServerSearch
) -> None:
    agent = make_agent()
    agent.tools.registry.add(WebSearchTool(server_search))
    seen: dict[str, Any] = {}

    def answer(body: dict[str, Any]) -> Reply:
        seen["result"] = body["messages"][-1]["content"][0]["content"]
        seen["tools"] = [t["name"] for t in body["tools"]]
        return Reply(text="lull is a calm coding agent.")

    fake.script(
        Reply(tool_calls=[ToolUse("web_search", {"query": "lull agent"})]),
        Reply(text="Found it.", web_search=ServerSearch(HITS)),
        Reply(respond=answer),
    )
    events = await run(agent, "what is lull?")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert len(finished) == 1 and not finished[0].result.is_error
    text = str(seen["result"])
    assert "1. lull on GitHub\n   https://github.com/example/lull\n   A calm coding agent." in text
    assert "web_search" in seen["tools"]
    # The main conversation never sees the server tool's blocks; the search's usage counts.
    assert all(t.get("type", "custom") == "custom" for t in fake.requests[-1]["tools"])
    runs = agent.session.record.subagents
    assert len(runs) == 1 and runs[0].agent == "web_search"
    assert runs[0].usage_by_model["claude-test"].input > 0
    report = "\n".join(cost_report(runtime_for(agent, fake), "").lines)
    assert "sub-agents: 0 run(s) + 1 web search(es), input " in report


def test_the_fake_rejects_what_the_api_rejects(fake: FakeServer) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=fake.url, api_key="test", max_retries=0)
    base: dict[str, Any] = {
        "model": "claude-test",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
    }
    bad_tools: list[tuple[dict[str, Any], str]] = [
        ({"type": "web_search_20250305", "name": "search"}, "Input should be 'web_search'"),
        ({"type": "web_search_20250305", "name": "web_search", "max_uses": 0}, "greater than 0"),
        (
            {
                "type": "web_search_20250305",
                "name": "web_search",
                "allowed_domains": ["a.com"],
                "blocked_domains": ["b.com"],
            },
            "both allowed_domains and blocked_domains",
        ),
        ({"type": "web_search_2099", "name": "web_search"}, "does not match any of the expected"),
        ({"type": "web_search_20250305", "name": "web_search", "colour": 1}, "Extra inputs"),
    ]
    for tool, message in bad_tools:
        with pytest.raises(anthropic.BadRequestError, match=message):
            client.messages.create(**base, tools=[tool])
    fake.script(Reply(text="x", web_search=ServerSearch(HITS)))
    with pytest.raises(anthropic.BadRequestError, match="offers no web_search_20250305 tool"):
        client.messages.create(**base)


def test_a_streamed_search_parses_in_the_sdk(fake: FakeServer) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=fake.url, api_key="test", max_retries=0)
    fake.script(Reply(text="Done.", web_search=ServerSearch(HITS)))
    tool = {"type": "web_search_20250305", "name": "web_search"}
    with client.messages.stream(
        model="claude-test",
        max_tokens=100,
        messages=[{"role": "user", "content": "lull"}],
        tools=[tool],  # type: ignore[list-item]
    ) as stream:
        message = stream.get_final_message()
    kinds = [block.type for block in message.content]
    assert kinds[:2] == ["server_tool_use", "web_search_tool_result"]
    cited = [b for b in message.content if b.type == "text" and b.citations]
    assert cited[0].citations[0].cited_text == "A calm coding agent."  # type: ignore[union-attr]
    assert message.usage.server_tool_use is not None
    assert message.usage.server_tool_use.web_search_requests == 1


async def test_after_a_model_switch_the_search_runs_on_the_new_model(
    fake: FakeServer, make_agent: AgentFactory, server_search: AnthropicServerSearch
) -> None:
    agent = make_agent()
    agent.tools.registry.add(WebSearchTool(server_search))
    runtime = runtime_for(agent, fake)
    runtime.use_model("claude-haiku-test")
    fake.script(Reply(text="Found it.", web_search=ServerSearch(HITS)))
    answer = await server_search.search("lull", 5, private_ok=False)
    assert fake.requests[-1]["model"] == "claude-haiku-test"
    assert answer.model == "claude-haiku-test"  # its usage is counted at this model's prices
    runtime.use_model("gpt-test")  # no server tool there: the search stays where it works
    assert server_search.model == "claude-haiku-test"
