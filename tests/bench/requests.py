"""Benchmark: what a request costs lull as the history grows, and the first one after a resume.

Real agents (official SDK providers, real tools, the cache-break detector, a saved session)
talk to the fake in its own process, so the CPU time of this process is lull's alone.

1. CPU per request (one short turn) with 5k, 153k and 504k tokens of history, both wires;
   the extra over the 5k-token session is what the history costs each request.
2. Building and encoding the request body at 153k tokens: the first request, then each next
   one (one message more), next to a full encoding of the same body without any cache.
3. The first request after resuming a 153k-token session (its file holds the token counts a
   previous run saved; compression at 90% of the window, so that request is not a
   compression), next to the first request after resuming a 5k-token one. The SDK client,
   made once per process whatever the history, is made before; the tokenizer is not loaded
   (as in a new process: loading it would count).

Prints figures, ratios and the issue's goals; asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lull.context.cachebreak import CacheBreakDetector
from lull.context.compress_plan import CompressionPolicy
from lull.context.tokens import get_tokenizer
from lull.engine.loop.agent import Agent
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model import defaults
from lull.model.text import wire_safe
from lull.providers import anthropic_wire, openai_wire
from lull.providers.anthropic import AnthropicProvider
from lull.providers.openai import OpenAIProvider
from tests.bench.history import fill, history, write_session
from tests.bench.support import fake_process, goal, median, ratio
from tests.support import build_agent, run

SIZES = (5_000, 153_000, 504_000)
EXTRA_GOAL_MS = {153_000: 20.0, 504_000: 60.0}  # OpenAI wire, extra CPU per request
ENCODE_GOAL_MS = 10.0
RESUMED_GOAL_MS = 50.0
RESUMED_AT = 0.9  # context.compression.threshold of the resumed sessions
MEASURED_TURNS = 5


def window_for(tokens: int) -> int:
    """Claude's 200k window, or 1M for a history that a 200k window could not take."""
    return 200_000 if tokens < 160_000 else 1_000_000


def _agent(
    url: str,
    root: Path,
    vendor: str,
    session: Session | None = None,
    window: int = 200_000,
    threshold: float = defaults.COMPRESSION_THRESHOLD,
) -> Agent:
    """A real agent against the fake at ``url``, with the runtime's cache-break detector."""
    fake: Any = SimpleNamespace(url=url, dialect="openai")
    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    policy = CompressionPolicy(threshold=threshold)
    agent = build_agent(
        fake, workspace, root, vendor, session=session, context_window=window, compression=policy
    )
    agent.request_hooks.append(CacheBreakDetector(lambda: agent.session.edits))
    return agent


async def _turn_ms(agent: Agent, prompt: str) -> float:
    started = time.process_time()
    await run(agent, prompt)
    return (time.process_time() - started) * 1000


async def per_request(url: str, vendor: str, tokens: int) -> float:
    """Median CPU ms of a one-request turn with ``tokens`` of history (after two warm-ups)."""
    with tempfile.TemporaryDirectory() as tmp:
        agent = _agent(url, Path(tmp), vendor, window=window_for(tokens))
        fill(agent.session, history(tokens))
        for warm in range(2):
            await _turn_ms(agent, f"warm-up {warm}")
        measured = [await _turn_ms(agent, f"turn {i}") for i in range(MEASURED_TURNS)]
        agent.session.close()
    return median(measured)


def encoding(vendor: str, tokens: int) -> tuple[float, float, float]:
    """(first body ms, next bodies ms, full re-encode ms) for ``tokens`` of history."""
    messages = history(tokens)
    with tempfile.TemporaryDirectory() as tmp:
        agent = _agent("http://127.0.0.1:9", Path(tmp), vendor)
        shape = agent.shape()
        provider = agent.provider
    assert isinstance(provider, AnthropicProvider | OpenAIProvider)
    requests = [replace(shape, messages=tuple(messages[: len(messages) - 5 + i])) for i in range(6)]
    started = time.process_time()
    provider.body.encode(requests[0])
    first = (time.process_time() - started) * 1000
    next_ms = []
    for request in requests[1:]:
        started = time.process_time()
        provider.body.encode(request)
        next_ms.append((time.process_time() - started) * 1000)
    full_ms = []
    for request in requests[1:]:
        started = time.process_time()
        _full_encode(request, vendor, provider.model)
        full_ms.append((time.process_time() - started) * 1000)
    return first, median(next_ms), median(full_ms)


def _full_encode(request: Any, vendor: str, model: str) -> bytes:
    """The body built and encoded whole, as before bodies were cached (no SDK walk)."""
    if vendor == "anthropic":
        params = anthropic_wire.build_params(request, model)
    else:
        params = openai_wire.build_params(request, model, vendor)  # type: ignore[arg-type]
    return json.dumps(wire_safe(params), ensure_ascii=False, separators=(",", ":")).encode()


async def resumed_first_request(url: str, vendor: str, tokens: int) -> tuple[float, float]:
    """(ms to load the session, CPU ms of its first request) after resuming ``tokens`` of
    history whose file holds the counts a previous run saved."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = SessionStore(root / "sessions", root / "ws")
        (root / "ws").mkdir()
        path = store.path_for("00000000-0000-4000-8000-000000000000")
        write_session(path, history(tokens), root / "ws")
        # the fake counts a 153k-token history as ~167k (JSON keys and all): compressing at
        # 90% of the 200k window keeps the first request about the resume, not a compression
        earlier = _agent(url, root, vendor, Session.resume(store, path), threshold=RESUMED_AT)
        # (a first run counts the history and saves the counts, as near a threshold)
        await run(earlier, "a first run over this history")
        earlier.session.close()
        get_tokenizer.cache_clear()  # as in a new process: loading one would count here
        started = time.process_time()
        session = Session.resume(store, path)
        load_ms = (time.process_time() - started) * 1000
        agent = _agent(url, root, vendor, session, threshold=RESUMED_AT)
        agent.provider.client.get()  # type: ignore[attr-defined]  # made once per process
        first_ms = await _turn_ms(agent, "and now?")
        agent.session.close()
    return load_ms, first_ms


async def _collect(url: str) -> dict[str, Any]:
    # the SDKs imported and their clients made once, before anything is measured
    with tempfile.TemporaryDirectory() as tmp:
        for vendor in ("anthropic", "openai"):
            warm = _agent(url, Path(tmp) / vendor, vendor)
            await run(warm, "warm up")
            warm.session.close()
    figures: dict[str, Any] = {}
    for vendor in ("openai", "anthropic"):
        figures[vendor] = {size: await per_request(url, vendor, size) for size in SIZES}
        figures[f"{vendor} resume"] = {
            size: await resumed_first_request(url, vendor, size) for size in (5_000, 153_000)
        }
        figures[f"{vendor} encode"] = encoding(vendor, 153_000)
    return figures


def main() -> None:
    """Print per-request costs, body encoding and the first request after a resume."""
    started = time.monotonic()
    with fake_process() as url:
        figures = asyncio.run(_collect(url))
    print("per-request benchmark: CPU ms lull spends on one request, fake in its own process")
    print(f"{'history':<10}{'openai':>10}{'extra':>10}{'anthropic':>12}{'extra':>10}")
    for size in SIZES:
        cells = []
        for vendor in ("openai", "anthropic"):
            value, base = figures[vendor][size], figures[vendor][SIZES[0]]
            cells.append(f"{value:>10.1f}{value - base:>+10.1f}")
        print(f"{size // 1000:>6}k   {cells[0]}  {cells[1]}")
    for size, limit in EXTRA_GOAL_MS.items():
        extra = figures["openai"][size] - figures["openai"][SIZES[0]]
        print(
            f"openai wire, extra per request at {size // 1000}k: {extra:+.1f} ms, "
            f"{ratio(figures['openai'][size], figures['openai'][SIZES[0]])} of the 5k session "
            f"(goal <= {limit:.0f} ms: {goal(extra, limit)})"
        )
    for vendor in ("openai", "anthropic"):
        first, then, full = figures[f"{vendor} encode"]
        print(
            f"{vendor} body at 153k: first {first:.1f} ms, then {then:.2f} ms per request, "
            f"{ratio(then, full)} of encoding it whole ({full:.1f} ms) "
            f"(goal <= {ENCODE_GOAL_MS:.0f} ms: {goal(then, ENCODE_GOAL_MS)})"
        )
    for vendor in ("openai", "anthropic"):
        (_, small), (big_load, big) = figures[f"{vendor} resume"].values()
        print(
            f"{vendor}: first request after resuming 153k: {big:.1f} ms "
            f"({ratio(big, small)} of a 5k session's {small:.1f} ms; loading the file "
            f"{big_load:.0f} ms) (goal <= {RESUMED_GOAL_MS:.0f} ms: {goal(big, RESUMED_GOAL_MS)})"
        )
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
