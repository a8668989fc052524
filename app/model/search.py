"""Web search vocabulary: what a search gives back, and what serves one.

The ``web_search`` tool (``tools/builtin/web_search.py``) asks a :class:`SearchBackend`: the model
provider's own server-side search (Anthropic, ``app/providers/anthropic_search.py``) or a
search API the user configured (``tools.webSearch``: Brave, Tavily, SearXNG, Exa;
``tools/net/search_backends.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args

from lull.model.provider import Usage

SearchProvider = Literal["anthropic", "brave", "tavily", "searxng", "exa"]
"""Who answers ``web_search``: the Anthropic server tool, or a configured search API."""
SEARCH_PROVIDERS: tuple[SearchProvider, ...] = get_args(SearchProvider)
MAX_RESULTS = 10


DEFAULT_KEY_ENV: dict[str, str] = {
    "brave": "BRAVE_API_KEY",
    "tavily": "TAVILY_API_KEY",
    "exa": "EXA_API_KEY",
}
"""The environment variable each search API's key is read from unless ``apiKeyEnv`` says."""


@dataclass(frozen=True, slots=True)
class WebSearchConfig:
    """``tools.webSearch``: who serves ``web_search`` (``off``: nobody), the environment
    variable holding the API key, and the API's URL (required for SearXNG)."""

    provider: SearchProvider | Literal["off"]
    api_key_env: str | None = None
    url: str | None = None

    def key_env(self) -> str | None:
        """The variable the key is read from (the provider's usual one by default)."""
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.provider)

    def to_json(self) -> dict[str, str]:
        """The entry as a settings file writes it."""
        out: dict[str, str] = {"provider": str(self.provider)}
        if self.api_key_env:
            out["apiKeyEnv"] = self.api_key_env
        if self.url:
            out["url"] = self.url
        return out


class SearchError(Exception):
    """A search that failed, as one line for the model (the backend and what went wrong);
    ``transient``: it may go away on its own (a 5xx, a dropped connection), worth a retry."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit: its title, URL and a snippet of its text."""

    title: str
    url: str
    snippet: str = ""


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    """What one search gave: the hits, and (a server-side search) the model's summary and the
    usage of the request it took (``model``: who answered it)."""

    results: Sequence[SearchResult]
    summary: str = ""
    usage: Usage | None = None
    model: str = ""
    extra: dict[str, str] = field(default_factory=dict)


class SearchBackend(Protocol):
    """Something that answers a web search."""

    name: str
    """How messages name it ("Brave Search", "Anthropic web search")."""

    @property
    def endpoint(self) -> str | None:
        """The URL the search goes to (None: the model provider's own API), for the
        private-address check a web fetch gets."""
        ...

    async def search(
        self, query: str, count: int, *, private_ok: bool, domains: Sequence[str] = ()
    ) -> SearchAnswer:
        """Search for ``query`` (at most ``count`` hits; ``domains``: only these sites);
        ``private_ok``: the endpoint may be a private address. Raises :class:`SearchError`."""
        ...
