"""``web_search`` served by Anthropic's server-side web search tool (no extra key).

One Messages request on the session's Claude model offers only the server tool
(``web_search_20250305``) and asks for a search; the answer's ``web_search_tool_result``
blocks give title and URL per hit, and the text's citations (``cited_text``) the snippets.
This keeps the conversation itself provider-neutral: the main model calls ``web_search`` like
any tool and gets title, URL and snippet back, compactable like any tool result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lull.model.provider import Usage
from lull.model.search import SearchAnswer, SearchError, SearchResult
from lull.model.text import wire_safe
from lull.providers.config import ANTHROPIC_DEFAULT_URL, ProviderConfig
from lull.providers.sdk import LazyClient, sdk_client

SERVER_TOOL_TYPE = "web_search_20250305"
SEARCH_MAX_TOKENS = 2048
SEARCH_PROMPT = (
    "Search the web for: {query}\n\nSearch once, then list what you found in one or two "
    "sentences per result."
)


def server_search_params(model: str, query: str, domains: Sequence[str]) -> dict[str, Any]:
    """The Messages request of one server-side search."""
    tool: dict[str, Any] = {"type": SERVER_TOOL_TYPE, "name": "web_search", "max_uses": 1}
    if domains:
        tool["allowed_domains"] = list(domains)
    return {
        "model": model,
        "max_tokens": SEARCH_MAX_TOKENS,
        "tools": [tool],
        "messages": [{"role": "user", "content": SEARCH_PROMPT.format(query=query)}],
    }


def answer_from(content: Sequence[dict[str, Any]], count: int) -> SearchAnswer:
    """Title, URL and snippet per hit from the answer's blocks; the text as the summary.
    Raises :class:`SearchError` for the server tool's error result."""
    results: dict[str, SearchResult] = {}
    snippets: dict[str, list[str]] = {}
    texts: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "web_search_tool_result":
            found = block.get("content")
            if isinstance(found, dict):  # web_search_tool_result_error
                code = found.get("error_code", "unknown")
                raise SearchError(f"the server-side search failed ({code})")
            for hit in found or []:
                url = str(hit.get("url") or "")
                if url and url not in results:
                    results[url] = SearchResult(str(hit.get("title") or ""), url)
        elif kind == "text":
            texts.append(str(block.get("text") or ""))
            for citation in block.get("citations") or []:
                cited = str(citation.get("cited_text") or "").strip()
                if cited:
                    snippets.setdefault(str(citation.get("url") or ""), []).append(cited)
    hits = [
        SearchResult(r.title, r.url, " … ".join(dict.fromkeys(snippets.get(url, []))))
        for url, r in results.items()
    ]
    return SearchAnswer(hits[:count], summary="".join(texts).strip())


def usage_from(usage: dict[str, Any]) -> Usage:
    """The search request's token usage."""
    return Usage(
        input=int(usage.get("input_tokens") or 0),
        output=int(usage.get("output_tokens") or 0),
        cache_read=int(usage.get("cache_read_input_tokens") or 0),
        cache_write=int(usage.get("cache_creation_input_tokens") or 0),
    )


class AnthropicServerSearch:
    """A search backend on Anthropic's own server-side web search."""

    name = "Anthropic web search"

    def __init__(self, config: ProviderConfig, model: str | None = None) -> None:
        self.config = config
        self.model = model or config.model
        self._client = LazyClient(
            lambda: sdk_client(config, "anthropic", "AsyncAnthropic", ANTHROPIC_DEFAULT_URL)
        )

    @property
    def endpoint(self) -> str | None:
        """None: the search runs on the model provider's API."""
        return None

    async def search(
        self, query: str, count: int, *, private_ok: bool, domains: Sequence[str] = ()
    ) -> SearchAnswer:
        """One server-side search; every failure becomes a :class:`SearchError`."""
        params = wire_safe(server_search_params(self.model, query, domains))
        try:
            response = await self._client.get().messages.create(**params)
        except Exception as error:  # the SDK's many error types: one line for the model
            message = getattr(error, "message", None) or str(error)
            status = getattr(error, "status_code", None)
            transient = status is None and "Connection" in type(error).__name__
            transient = transient or (isinstance(status, int) and status >= 500)
            raise SearchError(
                f"the search request failed: {message}", transient=transient
            ) from None
        data = response.model_dump() if hasattr(response, "model_dump") else dict(response)
        answer = answer_from(data.get("content") or [], count)
        return SearchAnswer(
            answer.results, answer.summary, usage_from(data.get("usage") or {}), self.model
        )

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.aclose()
