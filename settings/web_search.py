"""The ``tools.webSearch`` check: which search API serves ``web_search``."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

from lull.model.search import SEARCH_PROVIDERS, WebSearchConfig
from lull.settings.checks import Check, Invalid

_CHOICES = (*SEARCH_PROVIDERS, "off")
_KEYS = ("provider", "apiKeyEnv", "url")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class WebSearch(Check):
    """``"brave"`` or ``{"provider": "brave", "apiKeyEnv": "MY_KEY", "url": "https://..."}``."""

    nullable = True

    @property
    def expected(self) -> str:
        """What the setting accepts, in words."""
        return f"a provider ({', '.join(_CHOICES)}) or an object with provider, apiKeyEnv and url"

    def accepts(self, value: object) -> object:
        """A :class:`WebSearchConfig`."""
        if isinstance(value, str):
            value = {"provider": value}
        if not isinstance(value, Mapping):
            raise self.fail()
        unknown = sorted(str(k) for k in value if k not in _KEYS)
        if unknown:
            raise Invalid(f"known keys ({', '.join(_KEYS)}); {', '.join(unknown)} is not one")
        provider = value.get("provider")
        if provider not in _CHOICES:
            raise Invalid(f"provider: one of {', '.join(_CHOICES)} (got {provider!r})")
        key_env = value.get("apiKeyEnv")
        if key_env is not None and (not isinstance(key_env, str) or not _ENV_NAME.match(key_env)):
            raise Invalid(f"apiKeyEnv: the name of an environment variable (got {key_env!r})")
        url = value.get("url")
        if url is not None and not _is_http_url(url):
            raise Invalid(f"url: an http:// or https:// URL (got {url!r})")
        if provider == "searxng" and url is None:
            raise Invalid('url: SearXNG needs the URL of your instance ("url": "http://...")')
        return WebSearchConfig(provider, key_env, url)  # type: ignore[arg-type]

    def value_schema(self) -> dict[str, Any]:
        """A provider name, or the object."""
        return {
            "anyOf": [
                {"enum": list(_CHOICES)},
                {
                    "type": "object",
                    "properties": {
                        "provider": {"enum": list(_CHOICES)},
                        "apiKeyEnv": {"type": "string", "pattern": _ENV_NAME.pattern},
                        "url": {"type": "string", "pattern": "^https?://"},
                    },
                    "required": ["provider"],
                    "additionalProperties": False,
                },
            ]
        }

    def schema(self) -> dict[str, Any]:
        """The value's schema, or null."""
        fragment = self.value_schema()
        return {"anyOf": [*fragment["anyOf"], {"type": "null"}]}

    def to_json(self, value: object) -> object:
        """The entry as a settings file writes it."""
        return value.to_json() if isinstance(value, WebSearchConfig) else value


def _is_http_url(value: object) -> bool:
    if not isinstance(value, str):
        return False
    parsed = urllib.parse.urlsplit(value)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)
