"""Which models a provider's own server-side tools work with."""

from __future__ import annotations

#: Claude models with Anthropic's server-side web search (``web_search_20250305``): every
#: current Claude model (3.5 Haiku, 3.7 Sonnet and later).
_WEB_SEARCH_MARKERS = ("claude",)


def server_web_search(provider: str, model: str) -> bool:
    """Whether ``provider``'s API can search the web for ``model`` without another key."""
    name = model.lower()
    return provider == "anthropic" and any(marker in name for marker in _WEB_SEARCH_MARKERS)
