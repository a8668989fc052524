"""Anthropic's server-side web search tool (``web_search_20250305``) in the fake.

A request may offer the server tool next to custom tools; the fake checks its definition as
the real API does (name ``web_search``, known keys, ``max_uses`` >= 1, not both
``allowed_domains`` and ``blocked_domains``). A :class:`~tests.fakes.script.Reply` with a
``web_search`` (:class:`ServerSearch`) answers with the real response shape: a
``server_tool_use`` block, a ``web_search_tool_result`` block (hits with encrypted content,
or a ``web_search_tool_result_error``), text blocks citing the hits
(``web_search_result_location`` with ``cited_text``), and ``usage.server_tool_use``.
Scripting a search for a request that does not offer the tool is a 400: a real model cannot
search without it.
"""

from __future__ import annotations

import base64
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.errors import bad_request
from tests.fakes.outcome import new_id

WEB_SEARCH_TYPE = "web_search_20250305"
SERVER_TOOL_TYPES = (WEB_SEARCH_TYPE,)
_WEB_SEARCH_KEYS = {
    "type",
    "name",
    "max_uses",
    "allowed_domains",
    "blocked_domains",
    "user_location",
    "cache_control",
}


@dataclass
class SearchHit:
    """One page the fake's server-side search finds; ``snippet`` is what the text cites."""

    title: str
    url: str
    snippet: str = ""


@dataclass
class ServerSearch:
    """A server-side web search the fake model runs before answering: its ``query`` (default:
    the last user text), its ``hits``, or ``error_code`` (``max_uses_exceeded``,
    ``too_many_requests``, ``invalid_input``, ``query_too_long``, ``unavailable``)."""

    hits: list[SearchHit] = field(default_factory=list)
    query: str = ""
    error_code: str | None = None


def check_server_tool(index: int, tool: dict[str, Any]) -> None:
    """Raise the API's 400 for a server tool definition the real service rejects."""
    kind = tool.get("type")
    if kind not in SERVER_TOOL_TYPES:
        raise bad_request(
            f"tools.{index}: Input tag '{kind}' found using 'type' does not match any of the "
            f"expected tags: 'custom', {', '.join(repr(t) for t in SERVER_TOOL_TYPES)}"
        )
    if tool.get("name") != "web_search":
        raise bad_request(f"tools.{index}.{kind}.name: Input should be 'web_search'")
    for key in sorted(set(tool) - _WEB_SEARCH_KEYS):
        raise bad_request(f"tools.{index}.{kind}.{key}: Extra inputs are not permitted")
    uses = tool.get("max_uses")
    if uses is not None and (not isinstance(uses, int) or uses < 1):
        raise bad_request(f"tools.{index}.{kind}.max_uses: Input should be greater than 0")
    for key in ("allowed_domains", "blocked_domains"):
        value = tool.get(key)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(d, str) and d for d in value)
        ):
            raise bad_request(f"tools.{index}.{kind}.{key}: Input should be a list of domains")
    if tool.get("allowed_domains") and tool.get("blocked_domains"):
        raise bad_request(f"tools.{index}: cannot specify both allowed_domains and blocked_domains")


def offered_web_search(body: dict[str, Any]) -> dict[str, Any] | None:
    """The request's server-side web search tool, if it offers one."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == WEB_SEARCH_TYPE:
            return tool
    return None


def _host_matches(url: str, domains: list[str]) -> bool:
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return any(host == d.lower() or host.endswith("." + d.lower()) for d in domains)


def search_blocks(body: dict[str, Any], search: ServerSearch, query: str) -> list[dict[str, Any]]:
    """The content blocks of one server-side search: the call, its result, the cited text."""
    tool = offered_web_search(body)
    if tool is None:
        raise bad_request(
            "fake: the script runs a server-side web search but the request offers no "
            f"{WEB_SEARCH_TYPE} tool"
        )
    call_id = new_id("srvtoolu_01")
    call = {
        "type": "server_tool_use",
        "id": call_id,
        "name": "web_search",
        "input": {"query": search.query or query},
    }
    if search.error_code is not None:
        error = {"type": "web_search_tool_result_error", "error_code": search.error_code}
        return [call, {"type": "web_search_tool_result", "tool_use_id": call_id, "content": error}]
    hits = search.hits
    if tool.get("allowed_domains"):
        hits = [h for h in hits if _host_matches(h.url, tool["allowed_domains"])]
    if tool.get("blocked_domains"):
        hits = [h for h in hits if not _host_matches(h.url, tool["blocked_domains"])]
    results = [
        {
            "type": "web_search_result",
            "url": hit.url,
            "title": hit.title,
            "encrypted_content": base64.b64encode(hit.snippet.encode()).decode(),
            "page_age": None,
        }
        for hit in hits
    ]
    blocks: list[dict[str, Any]] = [
        call,
        {"type": "web_search_tool_result", "tool_use_id": call_id, "content": results},
    ]
    for hit in hits:
        if hit.snippet:
            citation = {
                "type": "web_search_result_location",
                "url": hit.url,
                "title": hit.title,
                "encrypted_index": base64.b64encode(hit.url.encode()).decode(),
                "cited_text": hit.snippet,
            }
            blocks.append({"type": "text", "text": hit.snippet, "citations": [citation]})
    return blocks
