"""web_search against the fake search APIs (Brave, Tavily, SearXNG, Exa) on loopback."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from lull.model.search import SearchAnswer, SearchError, SearchResult
from lull.tools.base import ToolContext, ToolOutput
from lull.tools.builtin.web_search import WebSearchTool
from lull.tools.net.search_backends import HttpSearchBackend
from lull.tools.registry import ToolRegistry, default_registry
from tests.fakes.search_api import FakeSearchApi
from tests.fakes.server_tools import SearchHit

HITS = [
    SearchHit("Python docs", "https://docs.python.org/3/", "The official   documentation."),
    SearchHit("PEP 8", "https://peps.python.org/pep-0008/", "Style guide for Python code."),
    SearchHit("Blog", "https://blog.example.com/post", ""),
]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def api_server() -> Iterator[FakeSearchApi]:
    with FakeSearchApi(key="sekrit") as fake:
        yield fake


@pytest.fixture
def api(api_server: FakeSearchApi) -> FakeSearchApi:
    """The module's fake API, reset for one test."""
    api_server.hits = list(HITS)
    api_server.requests.clear()
    api_server.status = None
    api_server.reply_body = None
    return api_server


@pytest.fixture
def private_ctx(ctx: ToolContext) -> ToolContext:
    """The fake API is on loopback: tools.allowPrivateNetwork lets the search reach it."""
    return dataclasses.replace(ctx, allow_private_network=True)


def registry_with(backend: Any) -> ToolRegistry:
    registry = default_registry()
    registry.add(WebSearchTool(backend))
    return registry


async def search(backend: Any, ctx: ToolContext, **args: Any) -> ToolOutput:
    return await registry_with(backend).execute("web_search", args, ctx)


@pytest.mark.parametrize("provider", ["brave", "tavily", "searxng", "exa"])
async def test_each_api_gives_title_url_and_snippet(
    provider: Any, api: FakeSearchApi, private_ctx: ToolContext
) -> None:
    key = None if provider == "searxng" else "sekrit"
    backend = HttpSearchBackend(provider, api_key=key, url=api.url(provider))
    out = await search(backend, private_ctx, query="python style", max_results=2)
    assert not out.is_error, out.content
    assert out.content.splitlines()[0].startswith('Web search results for "python style"')
    assert "1. Python docs\n   https://docs.python.org/3/\n   The official documentation." in (
        out.content
    )
    assert "2. PEP 8\n   https://peps.python.org/pep-0008/" in out.content
    assert "Blog" not in out.content  # max_results
    assert api.requests[-1].query.startswith("python style")


async def test_domains_and_count_reach_the_api(
    api: FakeSearchApi, private_ctx: ToolContext
) -> None:
    tavily = HttpSearchBackend("tavily", api_key="sekrit", url=api.url("tavily"))
    await search(tavily, private_ctx, query="q", max_results=3, allowed_domains=["python.org"])
    assert api.requests[-1].body == {
        "query": "q",
        "max_results": 3,
        "include_domains": ["python.org"],
    }
    brave = HttpSearchBackend("brave", api_key="sekrit", url=api.url("brave"))
    await search(brave, private_ctx, query="q", allowed_domains=["python.org"])
    assert api.requests[-1].query == "q (site:python.org)"


async def test_a_refused_key_names_the_variable(
    api: FakeSearchApi, private_ctx: ToolContext
) -> None:
    backend = HttpSearchBackend(
        "brave", api_key="wrong", key_name="BRAVE_API_KEY", url=api.url("brave")
    )
    out = await search(backend, private_ctx, query="q")
    assert out.is_error
    assert "web_search (Brave Search): the API refused the key in BRAVE_API_KEY (HTTP 401" in (
        out.content
    )


async def test_rate_limits_and_garbage_are_one_line(
    api: FakeSearchApi, private_ctx: ToolContext
) -> None:
    backend = HttpSearchBackend("exa", api_key="sekrit", url=api.url("exa"))
    api.status = 429
    out = await search(backend, private_ctx, query="q")
    assert out.is_error and "rate limited (HTTP 429" in out.content
    api.reply_body = b"<html>oops</html>"
    out = await search(backend, private_ctx, query="q")
    assert out.is_error and "did not answer with JSON" in out.content


async def test_an_unreachable_api_says_so(private_ctx: ToolContext) -> None:
    backend = HttpSearchBackend("searxng", url="http://127.0.0.1:9/")
    out = await search(backend, private_ctx, query="q")
    assert out.is_error and "could not reach" in out.content


async def test_a_private_backend_needs_approval_like_web_fetch(
    api: FakeSearchApi, ctx: ToolContext
) -> None:
    backend = HttpSearchBackend("searxng", url=api.url("searxng"))
    tool = WebSearchTool(backend)
    need = await tool.approval_need({"query": "q"}, ctx)
    assert need is not None
    assert "loopback" in need.reason and need.scope == "web_search(domain:127.0.0.1)"
    assert "tools.allowPrivateNetwork" in need.how_to_allow
    allowed = dataclasses.replace(ctx, allow_private_network=True)
    assert await tool.approval_need({"query": "q"}, allowed) is None
    # Without the approval, the guarded connection itself refuses the address.
    out = await search(backend, ctx, query="q")
    assert out.is_error and api.requests == []
    approved = dataclasses.replace(ctx, approved=True)
    assert not (await search(backend, approved, query="q")).is_error


class _Canned:
    """A search backend answering from memory (the tool's own behaviour, no HTTP)."""

    name = "Canned"
    endpoint = None

    def __init__(self, answer: SearchAnswer | SearchError) -> None:
        self.answer = answer
        self.asked: list[tuple[str, int, tuple[str, ...]]] = []

    async def search(
        self, query: str, count: int, *, private_ok: bool, domains: Sequence[str] = ()
    ) -> SearchAnswer:
        self.asked.append((query, count, tuple(domains)))
        if isinstance(self.answer, SearchError):
            raise self.answer
        return self.answer


async def test_bad_arguments_are_clear(ctx: ToolContext) -> None:
    backend = _Canned(SearchAnswer([]))
    out = await search(backend, ctx, query="   ")
    assert out.is_error and "web_search: the query is empty" in out.content
    out = await search(backend, ctx, query="x", max_results=99)
    assert "No results." in out.content
    assert backend.asked == [("x", 10, ())]


async def test_the_tool_is_compactable_and_read_only(tmp_path: Path) -> None:
    tool = WebSearchTool(_Canned(SearchAnswer([SearchResult("t", "https://a")])))
    assert tool.read_only and tool.compactable
    assert tool.describe_call({"query": "hello"}) == "hello"


async def test_a_5xx_is_tried_again_before_it_is_an_error(
    api: FakeSearchApi, private_ctx: ToolContext
) -> None:
    registry = registry_with(HttpSearchBackend("brave", api_key="sekrit", url=api.url("brave")))
    waits: list[float] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    registry.sleep = no_wait
    registry.retry_delays = (1.0,)
    api.status = 503
    out = await registry.execute("web_search", {"query": "q"}, private_ctx)
    assert not out.is_error and waits == [1.0] and out.metadata["retries"] == 1
    api.status = 401
    out = await registry.execute("web_search", {"query": "q"}, private_ctx)
    assert out.is_error and waits == [1.0]  # a refused key is not worth a retry
