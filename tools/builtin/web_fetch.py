"""The ``web_fetch`` tool: fetch a URL and return its text."""

from __future__ import annotations

import asyncio
import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from lull.tools.base import (
    ApprovalNeed,
    ToolContext,
    ToolError,
    ToolOutput,
    TransientToolError,
    TypedTool,
)
from lull.tools.net.guarded_http import (
    check_target,
    guarded_opener,
    proxy_endpoints,
    transient_network_failure,
)
from lull.tools.net.html_text import html_to_text
from lull.tools.net.netguard import (
    PRIVATE_NETWORK_HINT,
    RESOLVE_TIMEOUT_SECONDS,
    BlockedAddress,
    NetworkPolicy,
    Resolver,
    find_non_public,
    system_resolver,
)
from lull.tools.output import cap_output
from lull.tools.params import doc

TIMEOUT_SECONDS = 20.0
MAX_BYTES = 5 * 1024 * 1024
USER_AGENT = "lull/0.1 (web_fetch)"
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")

DESCRIPTION = """\
Fetch a web page or other text resource over http(s) and return its content as text \
(HTML is reduced to readable text).
- `url`: a full http:// or https:// URL.
- Use it to read documentation, issues or API responses the user points to.
- Binary content (images, archives, PDFs) is refused. Long pages are shortened.
- Fails clearly when offline or the host is unreachable; do not retry in a loop.
- Loopback, private-network, link-local and cloud-metadata addresses need the user's \
approval (the user is asked); redirects to them are not followed."""


@dataclass(frozen=True, slots=True)
class _Page:
    """What came back from the server."""

    url: str
    status: int
    content_type: str
    charset: str
    body: bytes


def _fetch(url: str, timeout: float, policy: NetworkPolicy) -> _Page:
    """Blocking GET of ``url`` (runs in a worker thread), connecting only where ``policy``
    allows."""
    check_target(url, policy)
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
    with guarded_opener(policy).open(request, timeout=timeout) as response:
        headers: Message = response.headers
        body = response.read(MAX_BYTES + 1)
        return _Page(
            url=response.geturl(),
            status=response.status,
            content_type=headers.get_content_type(),
            charset=headers.get_content_charset() or "utf-8",
            body=body,
        )


def _check_url(url: str) -> urllib.parse.SplitResult:
    """The parts of an absolute http(s) URL; ToolError for anything else."""
    try:
        parsed = urllib.parse.urlsplit(url)
        parsed.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        raise ToolError(f"web_fetch: {url!r} is not a valid URL: {exc}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ToolError(f"web_fetch: {url!r} is not an http:// or https:// URL")
    return parsed


def _blocked_message(url: str, blocked: BlockedAddress) -> str:
    """What the model sees when a fetch was stopped before connecting somewhere private."""
    return (
        f"web_fetch: {url} was not fetched: {blocked}; loopback, private-network, link-local "
        "and cloud-metadata addresses need the user's approval. Call web_fetch with that "
        f"address directly if it is needed, so the user is asked. {PRIVATE_NETWORK_HINT}"
    )


def _page_text(page: _Page) -> str:
    """The page body as text; ToolError for binary content."""
    if not page.content_type.startswith(_TEXT_TYPES) and not page.content_type.endswith(
        ("+json", "+xml")
    ):
        raise ToolError(
            f"web_fetch: {page.url} returned {page.content_type} content, which is not text"
        )
    truncated = len(page.body) > MAX_BYTES
    try:
        text = page.body[:MAX_BYTES].decode(page.charset, errors="replace")
    except LookupError:
        text = page.body[:MAX_BYTES].decode("utf-8", errors="replace")
    if page.content_type in ("text/html", "application/xhtml+xml"):
        text = html_to_text(text)
    if truncated:
        text += f"\n[... page cut at {MAX_BYTES:,} bytes]"
    return text


@dataclass(frozen=True, slots=True)
class WebFetchParams:
    """The arguments of ``web_fetch``."""

    url: str = field(metadata=doc("The http:// or https:// URL to fetch."))


class WebFetchTool(TypedTool[WebFetchParams]):
    """Fetch an http(s) URL and return its text."""

    name = "web_fetch"
    description = DESCRIPTION
    params = WebFetchParams
    read_only = True
    compactable = True
    aliases: Mapping[str, str] = {"link": "url", "uri": "url", "href": "url"}
    fingerprint_keys = ("url",)

    def __init__(
        self, timeout: float = TIMEOUT_SECONDS, resolver: Resolver = system_resolver
    ) -> None:
        self.timeout = timeout
        self.resolver = resolver

    async def approval_need(self, args: Mapping[str, Any], ctx: ToolContext) -> ApprovalNeed | None:
        """A fetch of a host that resolves to a non-public address needs approval."""
        if ctx.allow_private_network or not isinstance(args.get("url"), str):
            return None
        try:
            parsed = _check_url(str(args["url"]).strip())
            host = parsed.hostname or ""
            port = parsed.port or (443 if parsed.scheme == "https" else 80)
            addresses = await asyncio.wait_for(
                asyncio.to_thread(self.resolver, host, port), RESOLVE_TIMEOUT_SECONDS
            )
        except (ToolError, OSError, UnicodeError, TimeoutError):
            return None  # the fetch itself reports a bad URL or an unknown host
        finding = find_non_public(host, addresses)
        if finding is None:
            return None
        return ApprovalNeed(
            reason=finding.describe(),
            scope=f"web_fetch(domain:{host.lower()})",
            how_to_allow=PRIVATE_NETWORK_HINT,
        )

    def _policy(self, host: str, ctx: ToolContext) -> NetworkPolicy:
        """Where this call may connect: a host the user approved, the user's proxies, and
        public addresses (everything with ``tools.allowPrivateNetwork``)."""
        return NetworkPolicy(
            allow_all=ctx.allow_private_network,
            approved_hosts=frozenset({host.lower()}) if ctx.approved else frozenset(),
            trusted_endpoints=proxy_endpoints(),
            resolver=self.resolver,
        )

    async def call(self, params: WebFetchParams, ctx: ToolContext) -> ToolOutput:
        """Fetch the URL and return its readable text, capped."""
        url = params.url.strip()
        policy = self._policy(_check_url(url).hostname or "", ctx)
        try:
            page = await asyncio.wait_for(
                asyncio.to_thread(_fetch, url, self.timeout, policy), self.timeout * 1.5
            )
        except BlockedAddress as exc:
            raise ToolError(_blocked_message(url, exc)) from exc
        except urllib.error.HTTPError as exc:
            failure = TransientToolError if exc.code >= 500 else ToolError
            raise failure(f"web_fetch: {url} returned HTTP {exc.code} {exc.reason}") from exc
        except TimeoutError as exc:
            raise TransientToolError(
                f"web_fetch: could not reach {url}: timed out after {self.timeout:g} s "
                "(are you offline?)"
            ) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, BlockedAddress):
                raise ToolError(_blocked_message(url, exc.reason)) from exc
            failure = TransientToolError if transient_network_failure(exc.reason) else ToolError
            raise failure(
                f"web_fetch: could not reach {url}: {exc.reason} (are you offline?)"
            ) from exc
        except (OSError, http.client.HTTPException) as exc:
            failure = TransientToolError if transient_network_failure(exc) else ToolError
            raise failure(f"web_fetch: could not reach {url}: {exc} (are you offline?)") from exc
        text = _page_text(page)
        header = f"{page.url} ({page.status}, {page.content_type})\n\n"
        content = cap_output(header + (text or "(empty response)"), ctx, "page text")
        return ToolOutput(content, metadata={"url": page.url, "status": page.status})
