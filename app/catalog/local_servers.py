"""Find a local OpenAI-compatible model server (Ollama, LM Studio, vLLM) on this machine.

Used by the first-run setup: when no provider is configured, lull asks each
well-known port for ``GET /v1/models`` with a short timeout and offers the
first server that answers. Stdlib only (no SDK); every probe runs in its own
thread, so the whole search takes about one timeout. Only 127.0.0.1 is asked.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

DEFAULT_TIMEOUT = 0.3
# What lull sends as the API key to a server that needs none (the SDKs insist on one).
NO_KEY_PLACEHOLDER = "not-needed"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A server lull looks for: a display name and its OpenAI-compatible base URL."""

    name: str
    base_url: str


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
    Candidate("vLLM", "http://127.0.0.1:8000/v1"),
)


def probe(candidate: Candidate, timeout: float = DEFAULT_TIMEOUT) -> LocalServer | None:
    """Ask one candidate for its model list; None if nothing usable answers in time."""
    request = urllib.request.Request(
        candidate.base_url.rstrip("/") + "/models",
        headers={"Authorization": f"Bearer {NO_KEY_PLACEHOLDER}", "Accept": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read(1_000_000)
    except (urllib.error.URLError, OSError, ValueError):
        return None
    models = parse_models(body)
    if models is None:
        return None
    return LocalServer(candidate.name, candidate.base_url.rstrip("/"), models)


def parse_models(body: bytes) -> tuple[str, ...] | None:
    """Model ids from an OpenAI ``/v1/models`` body; None if it is not that shape."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    ids = [m.get("id") for m in data["data"] if isinstance(m, dict)]
    return tuple(i for i in ids if isinstance(i, str) and i)


def detect_local_servers(
    candidates: Sequence[Candidate] = CANDIDATES, timeout: float = DEFAULT_TIMEOUT
) -> list[LocalServer]:
    """Every candidate that answers, in the order of ``candidates`` (probes run in parallel).

    Blocking (about ``timeout`` seconds at most): call it from a thread, never
    from an event loop.
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
