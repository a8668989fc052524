"""Search APIs behind ``web_search`` (``tools.webSearch``): Brave, Tavily, SearXNG and Exa.

Each backend turns a query into one HTTP request (through the same guarded connection as
``web_fetch``: only checked addresses, redirects checked too) and the JSON answer into
title, URL and snippet per hit. The API key comes from the environment variable the user
named; it is sent only to that API and never written anywhere.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lull.model.search import SearchAnswer, SearchError, SearchProvider, SearchResult
from lull.tools.net.guarded_http import (
    check_target,
    guarded_opener,
    proxy_endpoints,
    transient_network_failure,
)
from lull.tools.net.netguard import BlockedAddress, NetworkPolicy, Resolver, system_resolver

USER_AGENT = "lull/0.1 (web_search)"
HTTP_TIMEOUT_SECONDS = 20.0
MAX_RESPONSE_BYTES = 4 * 1024 * 1024

DEFAULT_URLS: Mapping[str, str] = {
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
    "exa": "https://api.exa.ai/search",
}
NAMES: Mapping[str, str] = {
    "brave": "Brave Search",
    "tavily": "Tavily",
    "searxng": "SearXNG",
    "exa": "Exa",
}


@dataclass(frozen=True, slots=True)
class HttpCall:
    """One request to a search API."""

    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes | None = None


Builder = Callable[[str, str, str | None, int, Sequence[str]], HttpCall]
Parser = Callable[[Any], list[SearchResult]]


def _sites(query: str, domains: Sequence[str]) -> str:
    if not domains:
        return query
    return f"{query} ({' OR '.join(f'site:{d}' for d in domains)})"


def _json_call(url: str, payload: Mapping[str, Any], headers: Mapping[str, str]) -> HttpCall:
    body = json.dumps(payload).encode("utf-8")
    return HttpCall("POST", url, {**headers, "Content-Type": "application/json"}, body)


def _brave(url: str, query: str, key: str | None, count: int, domains: Sequence[str]) -> HttpCall:
    params = urllib.parse.urlencode({"q": _sites(query, domains), "count": count})
    return HttpCall("GET", f"{url}?{params}", {"X-Subscription-Token": key or ""})


def _tavily(url: str, query: str, key: str | None, count: int, domains: Sequence[str]) -> HttpCall:
    payload: dict[str, Any] = {"query": query, "max_results": count}
    if domains:
        payload["include_domains"] = list(domains)
    return _json_call(url, payload, {"Authorization": f"Bearer {key or ''}"})


def _searxng(url: str, query: str, key: str | None, count: int, domains: Sequence[str]) -> HttpCall:
    params = urllib.parse.urlencode({"q": _sites(query, domains), "format": "json"})
    base = url.rstrip("/")
    target = base if base.endswith("/search") else f"{base}/search"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return HttpCall("GET", f"{target}?{params}", headers)


def _exa(url: str, query: str, key: str | None, count: int, domains: Sequence[str]) -> HttpCall:
    payload: dict[str, Any] = {
        "query": query,
        "numResults": count,
        "contents": {"text": {"maxCharacters": 600}},
    }
    if domains:
        payload["includeDomains"] = list(domains)
    return _json_call(url, payload, {"x-api-key": key or ""})


def _hits(items: Any, snippet_key: str) -> list[SearchResult]:
    if not isinstance(items, list):
        raise SearchError("the answer has no result list")
    return [
        SearchResult(
            str(item.get("title") or ""), str(item["url"]), str(item.get(snippet_key) or "")
        )
        for item in items
        if isinstance(item, dict) and item.get("url")
    ]


_BUILDERS: Mapping[str, Builder] = {
    "brave": _brave,
    "tavily": _tavily,
    "searxng": _searxng,
    "exa": _exa,
}
_PARSERS: Mapping[str, Parser] = {
    "brave": lambda data: _hits((data.get("web") or {}).get("results", []), "description"),
    "tavily": lambda data: _hits(data.get("results"), "content"),
    "searxng": lambda data: _hits(data.get("results"), "content"),
    "exa": lambda data: _hits(data.get("results"), "text"),
}


class HttpSearchBackend:
    """A search API reached over HTTP(S)."""

    def __init__(
        self,
        provider: SearchProvider,
        *,
        api_key: str | None = None,
        key_name: str | None = None,
        url: str | None = None,
        resolver: Resolver = system_resolver,
    ) -> None:
        if provider not in _BUILDERS:
            raise ValueError(f"no HTTP search backend for {provider!r}")
        target = url or DEFAULT_URLS.get(provider)
        if not target:
            raise ValueError(f"{NAMES[provider]} needs a url")
        self.provider = provider
        self.name = NAMES[provider]
        self.url = target
        self._key = api_key
        self._key_name = key_name
        self._resolver = resolver

    @property
    def endpoint(self) -> str | None:
        """The API's URL."""
        return self.url

    async def search(
        self, query: str, count: int, *, private_ok: bool, domains: Sequence[str] = ()
    ) -> SearchAnswer:
        """One request to the API; its hits (at most ``count``)."""
        call = _BUILDERS[self.provider](self.url, query, self._key, count, domains)
        policy = NetworkPolicy(
            allow_all=private_ok, trusted_endpoints=proxy_endpoints(), resolver=self._resolver
        )
        data = await asyncio.to_thread(self._send, call, policy)
        if not isinstance(data, dict):
            raise SearchError("the answer is not a JSON object")
        return SearchAnswer(_PARSERS[self.provider](data)[:count])

    def _send(self, call: HttpCall, policy: NetworkPolicy) -> Any:
        """The blocking request (in a worker thread); the parsed JSON answer."""
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **call.headers}
        request = urllib.request.Request(
            call.url, data=call.body, headers=headers, method=call.method
        )
        try:
            check_target(call.url, policy)
            with guarded_opener(policy).open(request, timeout=HTTP_TIMEOUT_SECONDS) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as error:
            problem = self._http_problem(error.code, str(error.reason))
            raise SearchError(problem, transient=error.code >= 500) from None
        except BlockedAddress as error:
            raise SearchError(f"{self.url}: {error}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise SearchError(
                f"could not reach {self.url}: {reason} (are you offline?)",
                transient=transient_network_failure(reason),
            ) from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise SearchError("the answer is larger than 4 MB")
        try:
            return json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            raise SearchError(f"{self.url} did not answer with JSON") from None

    def _http_problem(self, status: int, reason: str) -> str:
        if status in (401, 403):
            where = f" in {self._key_name}" if self._key_name else ""
            return f"the API refused the key{where} (HTTP {status} {reason})"
        if status == 429:
            return f"rate limited (HTTP 429 {reason}); try again later"
        return f"{self.url} answered HTTP {status} {reason}"
