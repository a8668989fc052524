"""Local OpenAI-compatible model servers: find them, tell what they are, list their models.

The first-run setup asks each well-known port on 127.0.0.1 (Ollama 11434, LM Studio 1234,
vLLM or llama-cpp-python 8000, llama.cpp's ``llama-server`` 8080) for ``GET /v1/models``
with a short timeout. A server is named by what it says about itself, never by its port:
the ``owned_by`` of its models, Ollama's ``/api/version``, llama.cpp's ``/props``; else
neutrally ("OpenAI-compatible server on :8000"). At start-up without a model name,
:func:`list_models` asks the configured server which models it serves. Stdlib only (no
SDK); the probes run in parallel threads, so a search takes about one timeout.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

DEFAULT_TIMEOUT = 0.3
LIST_TIMEOUT = 3.0
"""Asking a configured (maybe remote) server for its models at start-up."""
# What lull sends as the API key to a server that needs none (the SDKs insist on one).
NO_KEY_PLACEHOLDER = "not-needed"
_MAX_BODY = 1_000_000
_LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".internal", ".home.arpa")

OWNERS: dict[str, str] = {
    "vllm": "vLLM",
    "llamacpp": "llama.cpp server",
    "me": "llama-cpp-python",
    "organization_owner": "LM Studio",
    "sglang": "SGLang",
}
"""What a server's ``/v1/models`` ``owned_by`` fields say about the server."""


class ModelListError(Exception):
    """A server's model list could not be read; the message says why, in a few words."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A port lull looks at: who usually listens there (for the "looking for" line only;
    a server found there is named by what it says) and its OpenAI-compatible base URL."""

    usual: str
    base_url: str

    @property
    def port(self) -> str:
        """The port, as text ("11434")."""
        return str(urlsplit(self.base_url).port or "")


@dataclass(frozen=True, slots=True)
class LocalServer:
    """A server that answered: its name, base URL (ending in /v1) and the models it serves."""

    name: str
    base_url: str
    models: tuple[str, ...]

    @property
    def default_model(self) -> str | None:
        """The model to offer first (the first one the server lists), or None."""
        return self.models[0] if self.models else None


CANDIDATES: tuple[Candidate, ...] = (
    Candidate("Ollama", "http://127.0.0.1:11434/v1"),
    Candidate("LM Studio", "http://127.0.0.1:1234/v1"),
    Candidate("vLLM, llama-cpp-python", "http://127.0.0.1:8000/v1"),
    Candidate("llama.cpp", "http://127.0.0.1:8080/v1"),
)


def is_local_url(url: str | None) -> bool:
    """Whether ``url`` points at this machine or a private network (loopback, private and
    link-local addresses, ``localhost``, single-label and ``.local``-style host names)."""
    if not url:
        return False
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if not host:
        return False
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        pass
    return host == "localhost" or host.endswith(_LOCAL_SUFFIXES) or "." not in host


def _get_json(url: str, timeout: float, api_key: str | None = None) -> Any:
    """``GET url`` as JSON; raises :class:`ModelListError` saying what went wrong."""
    import urllib.error  # here: urllib.request and http.client are not on the -p path
    import urllib.request

    headers = {"Accept": "application/json"}
    headers["Authorization"] = f"Bearer {api_key or NO_KEY_PLACEHOLDER}"
    request = urllib.request.Request(url, headers=headers)
    handlers = [urllib.request.ProxyHandler({})] if is_local_url(url) else []
    opener = urllib.request.build_opener(*handlers)  # a local server: never through a proxy
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read(_MAX_BODY)
    except urllib.error.HTTPError as error:
        raise ModelListError(f"HTTP {error.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise ModelListError(f"no answer ({reason})") from None
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ModelListError("the answer is not JSON") from None


def _model_entries(data: Any) -> list[dict[str, Any]] | None:
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    return [m for m in data["data"] if isinstance(m, dict)]


def parse_models(body: bytes) -> tuple[str, ...] | None:
    """Model ids from an OpenAI ``/v1/models`` body; None if it is not that shape."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return _model_ids(data)


def _model_ids(data: Any) -> tuple[str, ...] | None:
    entries = _model_entries(data)
    if entries is None:
        return None
    ids = [m.get("id") for m in entries]
    return tuple(i for i in ids if isinstance(i, str) and i)


def list_models(
    base_url: str, api_key: str | None = None, timeout: float = LIST_TIMEOUT
) -> tuple[str, ...]:
    """The models an OpenAI-compatible server at ``base_url`` serves (``GET {base}/models``).

    Raises :class:`ModelListError` when the server does not answer with a model list.
    """
    data = _get_json(base_url.rstrip("/") + "/models", timeout, api_key)
    models = _model_ids(data)
    if models is None:
        raise ModelListError("the answer is not a model list")
    return models


def server_name(base_url: str, models_data: Any, timeout: float = DEFAULT_TIMEOUT) -> str:
    """What the server at ``base_url`` is, from what it says: the ``owned_by`` of its
    models, then Ollama's ``/api/version`` and llama.cpp's ``/props``; else a neutral name."""
    owners = {str(m.get("owned_by", "")) for m in _model_entries(models_data) or []}
    named = sorted({OWNERS[owner] for owner in owners if owner in OWNERS})
    if len(named) == 1:
        return named[0]
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        version = _get_json(root + "/api/version", timeout)
        if isinstance(version, dict) and isinstance(version.get("version"), str):
            return "Ollama"
    except ModelListError:
        pass
    try:
        props = _get_json(root + "/props", timeout)
        if isinstance(props, dict) and "default_generation_settings" in props:
            return "llama.cpp server"
    except ModelListError:
        pass
    port = urlsplit(base_url).port
    return f"OpenAI-compatible server on :{port}" if port else "OpenAI-compatible server"


def probe(candidate: Candidate, timeout: float = DEFAULT_TIMEOUT) -> LocalServer | None:
    """Ask one candidate for its model list and what it is; None if nothing usable answers."""
    base_url = candidate.base_url.rstrip("/")
    try:
        data = _get_json(base_url + "/models", timeout)
    except ModelListError:
        return None
    models = _model_ids(data)
    if models is None:
        return None
    return LocalServer(server_name(base_url, data, timeout), base_url, models)


def detect_local_servers(
    candidates: Sequence[Candidate] = CANDIDATES, timeout: float = DEFAULT_TIMEOUT
) -> list[LocalServer]:
    """Every candidate that answers, in the order of ``candidates`` (probes run in parallel).

    Blocking (a few timeouts at most): call it from a thread, never from an event loop.
    """
    if not candidates:
        return []
    with ThreadPoolExecutor(max_workers=len(candidates), thread_name_prefix="lull-probe") as pool:
        found = list(pool.map(lambda c: probe(c, timeout), candidates))
    return [server for server in found if server is not None]


def detect_local_server(
    candidates: Sequence[Candidate] = CANDIDATES, timeout: float = DEFAULT_TIMEOUT
) -> LocalServer | None:
    """The first candidate that answers, preferring one that lists a model; None if none."""
    servers = detect_local_servers(candidates, timeout)
    with_models = [s for s in servers if s.models]
    preferred = with_models or servers
    return preferred[0] if preferred else None
