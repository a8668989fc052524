"""Which model endpoint to talk to: provider, model, key, base URL and vendor dialect.

Pure configuration: resolving it never imports an SDK. :func:`create_provider`
imports the chosen provider module (and with it the SDK) only when called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, assert_never
from urllib.parse import urlsplit

from lull.catalog.aliases import resolve_alias
from lull.catalog.local_servers import NO_KEY_PLACEHOLDER, ModelListError
from lull.model import defaults
from lull.model.provider import VENDORS, ProviderName, Vendor

ProviderKind = ProviderName | Literal["scripted"]
"""What can serve requests: an API family, or the in-process scripted model (``--demo``)."""

if TYPE_CHECKING:
    from lull.model.provider import Provider


ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
#: How long opening a TCP connection may take (capped by ``model.timeoutSeconds``): a server
#: that is up accepts within milliseconds even across the world.
CONNECT_TIMEOUT_SECONDS = 10.0

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.5",
    "deepseek": "deepseek-chat",
    "deepseek-legacy": "deepseek-reasoner",
    "kimi": "kimi-k2-thinking",
    "qwen": "qwen3-coder-plus",
}

ModelLister = Callable[[str, str], tuple[str, ...]]
"""Asks a server (base URL, API key) which models it serves; raises ModelListError."""
MODELS_SHOWN = 12

NO_PROVIDER_MESSAGE = (
    "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY "
    "(and OPENAI_BASE_URL for a compatible server), or model.provider in settings.json"
)

# Host fragments that identify a vendor, checked in order.
_HOST_VENDORS: tuple[tuple[str, Vendor], ...] = (
    ("deepseek.com", "deepseek"),
    ("moonshot", "kimi"),
    ("dashscope", "qwen"),
    ("api.openai.com", "openai"),
)
# Model-name prefixes (after the last "/") that identify a vendor on other hosts.
_MODEL_VENDORS: tuple[tuple[str, Vendor], ...] = (
    ("deepseek", "deepseek"),
    ("kimi", "kimi"),
    ("qwen", "qwen"),
)


class ConfigError(Exception):
    """The provider configuration is unusable; the message is one line saying why."""


class NoModelName(ConfigError):
    """An OpenAI-compatible server without a default model, and no model named: the caller
    may ask the server (``base_url``, with ``api_key``) which models it serves."""

    def __init__(self, base_url: str | None, api_key: str) -> None:
        super().__init__(
            f"no model name for the server at {base_url}: set --model or model.name "
            "(a compatible server has no default model)"
        )
        self.base_url = base_url
        self.api_key = api_key


@dataclass(frozen=True)
class ProviderConfig:
    """Everything needed to build a provider client.

    ``base_url`` is None for the vendor's public endpoint; ``vendor`` selects the
    OpenAI-compatible dialect (reasoning round-trip rules, token limit field).
    ``max_retries`` bounds lull's own retries of a failed request; ``timeout_seconds``
    (``model.timeoutSeconds``) is how long the server may stay silent, before the first
    byte and between chunks.
    """

    provider: ProviderKind
    model: str
    api_key: str | None
    base_url: str | None
    vendor: Vendor
    max_retries: int = 2
    timeout_seconds: float = defaults.TIMEOUT_SECONDS

    @property
    def connect_timeout_seconds(self) -> float:
        """How long opening a connection may take."""
        return min(CONNECT_TIMEOUT_SECONDS, self.timeout_seconds)

    @property
    def effective_base_url(self) -> str:
        """The URL requests go to (the public endpoint when ``base_url`` is None)."""
        if self.base_url:
            return self.base_url
        if self.provider == "scripted":
            return "in-process"
        return ANTHROPIC_DEFAULT_URL if self.provider == "anthropic" else OPENAI_DEFAULT_URL


def detect_vendor(provider: str, base_url: str | None, model: str) -> Vendor:
    """Guess the vendor dialect from the provider, the base URL's host and the model name.

    The host wins over the model name; a local Ollama port (11434) is Ollama
    whatever it serves; no base URL means OpenAI itself. DeepSeek's legacy
    dialect is never guessed: it must be configured explicitly.
    """
    if provider == "anthropic":
        return "anthropic"
    if not base_url:
        return "openai"
    netloc = urlsplit(base_url).netloc.lower()
    for fragment, vendor in _HOST_VENDORS:
        if fragment in netloc:
            return vendor
    if netloc.endswith(":11434"):
        return "ollama"
    name = model.lower().rsplit("/", 1)[-1]
    for prefix, vendor in _MODEL_VENDORS:
        if name.startswith(prefix):
            return vendor
    return "generic"


def resolve_provider_config(
    *,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    vendor: str | None,
    env: Mapping[str, str],
) -> ProviderConfig:
    """Combine explicit settings (CLI/settings, already merged) with environment variables.

    Explicit values win; otherwise ``ANTHROPIC_*`` / ``OPENAI_*`` variables pick
    the provider, key and base URL. On the Anthropic wire a Claude Code alias (``sonnet``,
    ``haiku``, ``opus[1m]``) becomes the model id it stands for. Raises
    :class:`ConfigError` with a one-line message naming what to set when the result could
    not work.
    """
    chosen = _choose_provider(provider, env)
    url = _clean_base_url(base_url or _env(env, f"{chosen.upper()}_BASE_URL"))
    name = model.strip() if model and model.strip() else None
    if name is not None and chosen == "anthropic":
        name = resolve_alias(name, env)  # Claude Code's aliases: "haiku" is not a model id
    guessed = detect_vendor(chosen, url, name or "")
    dialect = _check_vendor(chosen, vendor) if vendor else guessed
    key = _api_key(chosen, url, env)
    if name is None:
        name = _default_model(chosen, dialect, url, key)
    return ProviderConfig(provider=chosen, model=name, api_key=key, base_url=url, vendor=dialect)


def model_from_server(missing: NoModelName, lister: ModelLister) -> str:
    """The only model the server without a default serves (``GET {base}/models``); raises
    :class:`ConfigError` listing several (and how to choose) or saying why there is none."""
    url = missing.base_url or ""
    try:
        models = lister(url, missing.api_key)
    except ModelListError as error:
        message = f"{missing}; asking the server (GET {url}/models) failed: {error}"
        raise ConfigError(message) from None
    if len(models) == 1:
        return models[0]
    if not models:
        raise ConfigError(
            f"the server at {url} lists no models (GET {url}/models): load one there, "
            "or name it with -m NAME or model.name"
        )
    shown = ", ".join(models[:MODELS_SHOWN])
    more = f" and {len(models) - MODELS_SHOWN} more" if len(models) > MODELS_SHOWN else ""
    raise ConfigError(
        f"the server at {url} serves {len(models)} models: {shown}{more}; "
        "choose one with -m NAME (or model.name in settings.json)"
    )


def demo_config(model: str | None = None) -> ProviderConfig:
    """The in-process scripted model of ``lull --demo`` (no key, no network)."""
    from lull.providers.scripted import DEFAULT_MODEL

    return ProviderConfig("scripted", model or DEFAULT_MODEL, None, None, "generic")


def create_provider(config: ProviderConfig) -> Provider:
    """Build the provider for ``config``; its SDK is imported at the first request (or
    ahead of time by :func:`lull.providers.sdk.preload_sdk`)."""
    match config.provider:
        case "anthropic":
            from lull.providers.anthropic import AnthropicProvider

            return AnthropicProvider(config)
        case "openai":
            from lull.providers.openai import OpenAIProvider

            return OpenAIProvider(config)
        case "scripted":
            from lull.providers.scripted import ScriptedProvider, demo_reply

            return ScriptedProvider(model=config.model, respond=demo_reply)
        case _:
            assert_never(config.provider)


def _env(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _choose_provider(provider: str | None, env: Mapping[str, str]) -> ProviderName:
    if provider:
        cleaned = provider.strip().lower()
        if cleaned == "anthropic":
            return "anthropic"
        if cleaned == "openai":
            return "openai"
        raise ConfigError(
            f"unknown provider {provider!r}: use 'anthropic' or 'openai' "
            "(--provider / model.provider)"
        )
    anthropic_vars = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    if any(_env(env, name) for name in anthropic_vars):
        return "anthropic"
    if _env(env, "OPENAI_API_KEY") or _env(env, "OPENAI_BASE_URL"):
        return "openai"
    raise ConfigError(NO_PROVIDER_MESSAGE)


def _clean_base_url(url: str | None) -> str | None:
    if url is None or not url.strip():
        return None
    cleaned = url.strip().rstrip("/")
    parts = urlsplit(cleaned)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"base URL {url!r} is not an http(s) URL: use e.g. http://localhost:8000/v1 "
            "(--base-url / model.baseUrl / *_BASE_URL)"
        )
    return cleaned


def _check_vendor(provider: ProviderName, vendor: str) -> Vendor:
    cleaned = vendor.strip().lower()
    if cleaned not in VENDORS:
        raise ConfigError(f"unknown vendor {vendor!r}: use one of {', '.join(VENDORS)}")
    if (cleaned == "anthropic") != (provider == "anthropic"):
        raise ConfigError(
            f"vendor {cleaned!r} does not fit provider {provider!r}: "
            "vendor 'anthropic' goes with provider 'anthropic', the others with 'openai'"
        )
    return cleaned


def _default_model(
    provider: ProviderName, vendor: Vendor, base_url: str | None, api_key: str
) -> str:
    if provider == "anthropic":
        return DEFAULT_MODELS["anthropic"]
    if vendor in DEFAULT_MODELS:
        return DEFAULT_MODELS[vendor]
    raise NoModelName(base_url, api_key)


def _api_key(provider: ProviderName, base_url: str | None, env: Mapping[str, str]) -> str:
    if provider == "anthropic":
        key = _env(env, "ANTHROPIC_API_KEY") or _env(env, "ANTHROPIC_AUTH_TOKEN")
        if key is None:
            raise ConfigError(
                "ANTHROPIC_API_KEY is not set: the anthropic provider needs an API key "
                "(or ANTHROPIC_AUTH_TOKEN)"
            )
        return key
    key = _env(env, "OPENAI_API_KEY")
    if key is not None:
        return key
    if base_url is None or "api.openai.com" in urlsplit(base_url).netloc.lower():
        raise ConfigError(
            "OPENAI_API_KEY is not set: api.openai.com needs an API key "
            "(a compatible server without keys needs OPENAI_BASE_URL / --base-url)"
        )
    return NO_KEY_PLACEHOLDER
