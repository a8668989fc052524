"""The ``web_search`` tool: search the web, get title, URL and snippet per hit.

A :class:`~lull.model.search.SearchBackend` answers: Anthropic's server-side web search on
Claude models (no extra key), or a search API from ``tools.webSearch``. The tool is offered
only when one is available. Like ``web_fetch``, it is read-only, and a backend at a loopback
or private address (a SearXNG on this machine) needs the user's approval unless
``tools.allowPrivateNetwork`` is set.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lull.model.search import MAX_RESULTS, SearchAnswer, SearchBackend, SearchError
from lull.tools.base import (
    ApprovalNeed,
    ToolContext,
    ToolError,
    ToolOutput,
    TransientToolError,
    TypedTool,
)
from lull.tools.net.netguard import (
    PRIVATE_NETWORK_HINT,
    RESOLVE_TIMEOUT_SECONDS,
    Resolver,
    find_non_public,
    system_resolver,
)
from lull.tools.output import cap_output
from lull.tools.params import doc

DEFAULT_RESULTS = 5
TIMEOUT_SECONDS = 30.0

DESCRIPTION = f"""\
Search the web and return the top results: title, URL and a snippet of each.
- `query`: what to search for, as you would type it into a search engine.
- `max_results`: how many results (default {DEFAULT_RESULTS}, at most {MAX_RESULTS}).
- `allowed_domains`: only results from these sites (e.g. ["docs.python.org"]).
- Use it for current information, documentation and error messages you do not know; then \
read the most promising pages with web_fetch. Cite the URLs you relied on."""


@dataclass(frozen=True, slots=True)
class WebSearchParams:
    """The arguments of ``web_search``."""

    query: str = field(metadata=doc("The search query."))
    max_results: int = field(
        default=DEFAULT_RESULTS,
        metadata=doc(f"How many results (1-{MAX_RESULTS}, default {DEFAULT_RESULTS})."),
    )
    allowed_domains: list[str] = field(
        default_factory=list, metadata=doc("Only return results from these domains.")
    )


class WebSearchTool(TypedTool[WebSearchParams]):
    """Search the web through one backend."""

    name = "web_search"
    description = DESCRIPTION
    params = WebSearchParams
    read_only = True
    compactable = True

    def __init__(self, backend: SearchBackend, resolver: Resolver = system_resolver) -> None:
        self.backend = backend
        self.resolver = resolver

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The query, for the UI."""
        return str(args.get("query", ""))

    async def approval_need(self, args: Mapping[str, Any], ctx: ToolContext) -> ApprovalNeed | None:
        """A backend at a loopback or private address needs approval, like a web fetch."""
        endpoint = self.backend.endpoint
        if ctx.allow_private_network or endpoint is None:
            return None
        parsed = urllib.parse.urlsplit(endpoint)
        host = parsed.hostname or ""
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        try:
            addresses = await asyncio.wait_for(
                asyncio.to_thread(self.resolver, host, port), RESOLVE_TIMEOUT_SECONDS
            )
        except (OSError, UnicodeError, TimeoutError):
            return None  # the search itself reports an unknown host
        finding = find_non_public(host, addresses)
        if finding is None:
            return None
        return ApprovalNeed(
            reason=f"the search backend {finding.describe()}",
            scope=f"web_search(domain:{host.lower()})",
            how_to_allow=PRIVATE_NETWORK_HINT.replace("web_fetch", "web_search"),
        )

    async def call(self, params: WebSearchParams, ctx: ToolContext) -> ToolOutput:
        """Search, and list the results."""
        query = params.query.strip()
        if not query:
            raise ToolError("web_search: the query is empty")
        count = max(1, min(MAX_RESULTS, params.max_results))
        # the items' type is not checked before the call: a model may send numbers
        domains = [str(d).strip() for d in params.allowed_domains if str(d).strip()]
        private_ok = ctx.allow_private_network or ctx.approved
        try:
            answer = await asyncio.wait_for(
                self.backend.search(query, count, private_ok=private_ok, domains=domains),
                TIMEOUT_SECONDS,
            )
        except SearchError as error:
            failure = TransientToolError if error.transient else ToolError
            raise failure(f"web_search ({self.backend.name}): {error}") from None
        except TimeoutError:
            raise TransientToolError(
                f"web_search ({self.backend.name}): no answer within {TIMEOUT_SECONDS:g} s"
            ) from None
        text = format_answer(query, answer, self.backend.name)
        meta: dict[str, Any] = {"results": len(answer.results), "backend": self.backend.name}
        if answer.usage is not None:
            meta["usage"] = answer.usage
            meta["model"] = answer.model
        return ToolOutput(cap_output(text, ctx, "search results"), metadata=meta)


def format_answer(query: str, answer: SearchAnswer, backend: str) -> str:
    """The results as the model reads them: numbered title, URL and snippet."""
    lines = [f'Web search results for "{query}" ({backend}):']
    if not answer.results:
        lines.append("No results.")
    for number, result in enumerate(answer.results, 1):
        lines.append(f"\n{number}. {result.title or '(no title)'}\n   {result.url}")
        if result.snippet:
            lines.append(f"   {_one_paragraph(result.snippet)}")
    if answer.summary:
        lines.append(f"\nSummary from the search: {answer.summary.strip()}")
    return "\n".join(lines)


def _one_paragraph(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
