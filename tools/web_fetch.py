"""The ``web_fetch`` tool: fetch a URL and return its text."""

from __future__ import annotations

import asyncio
import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.html_text import html_to_text
from tools.output import cap_output

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
- Fails clearly when offline or the host is unreachable; do not retry in a loop."""


@dataclass(frozen=True, slots=True)
class _Page:
    """What came back from the server."""

    url: str
    status: int
    content_type: str
    charset: str
    body: bytes


def _fetch(url: str, timeout: float) -> _Page:
    """Blocking GET of ``url`` (runs in a worker thread)."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        headers: Message = response.headers
        body = response.read(MAX_BYTES + 1)
        return _Page(
            url=response.geturl(),
            status=response.status,
            content_type=headers.get_content_type(),
            charset=headers.get_content_charset() or "utf-8",
            body=body,
        )


def _check_url(url: str) -> None:
    """Refuse anything but an absolute http(s) URL."""
    try:
        parsed = urllib.parse.urlsplit(url)
    except ValueError as exc:
        raise ToolError(f"web_fetch: {url!r} is not a valid URL: {exc}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ToolError(f"web_fetch: {url!r} is not an http:// or https:// URL")


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


class WebFetchTool(Tool):
    """Fetch an http(s) URL and return its text."""

    name = "web_fetch"
    description = DESCRIPTION
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "The http:// or https:// URL to fetch."},
        },
        "required": ["url"],
        "additionalProperties": False,
    }
    read_only = True
    compactable = True

    def __init__(self, timeout: float = TIMEOUT_SECONDS) -> None:
        self.timeout = timeout

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Fetch the URL and return its readable text, capped."""
        url = str(args["url"]).strip()
        _check_url(url)
        try:
            page = await asyncio.wait_for(
                asyncio.to_thread(_fetch, url, self.timeout), self.timeout * 1.5
            )
        except urllib.error.HTTPError as exc:
            raise ToolError(f"web_fetch: {url} returned HTTP {exc.code} {exc.reason}") from exc
        except TimeoutError as exc:
            raise ToolError(
                f"web_fetch: could not reach {url}: timed out after {self.timeout:g} s "
                "(are you offline?)"
            ) from exc
        except urllib.error.URLError as exc:
            raise ToolError(
                f"web_fetch: could not reach {url}: {exc.reason} (are you offline?)"
            ) from exc
        except (OSError, http.client.HTTPException) as exc:
            raise ToolError(f"web_fetch: could not reach {url}: {exc} (are you offline?)") from exc
        text = _page_text(page)
        header = f"{page.url} ({page.status}, {page.content_type})\n\n"
        content = cap_output(header + (text or "(empty response)"), ctx, "page text")
        return ToolOutput(content, metadata={"url": page.url, "status": page.status})
