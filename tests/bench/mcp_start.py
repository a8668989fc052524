"""Benchmark: ``lull -p``'s time to its first request with six MCP servers configured, next
to none (issue 30: within 1.2x when the prompt needs no MCP tool).

The servers (``tests/bench/mcp_servers.py``: the SDK's ``MCPServer``, a few tools each with
realistic schemas) start as stdio subprocesses. A warm-up run keeps their listings
(``docs/mcp.md``: what ``-p`` waits for), then runs with and without them alternate; the
figure is the wall time from starting ``lull -p`` to the fake receiving its first request
(medians). ``tools.toolSearch`` is on (six small servers stay under ``auto``'s threshold, and
a server whose tools are offered in full is waited for). Also printed: the same with no kept
listing (the servers are waited for). Prints figures and the goal; asserts nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.bench.mcp_servers import KINDS
from tests.bench.support import ROOT, goal, median, ratio
from tests.e2e.conftest import lull_command
from tests.fakes import FakeServer, Reply

GOAL = 1.2  # time to the first request with six servers vs none, at most


class FirstRequest:
    """The moment the fake receives a request."""

    def __init__(self) -> None:
        self.at = 0.0
        self.seen = threading.Event()

    def respond(self, body: dict[str, Any]) -> Reply:
        """Note the time, answer with a line."""
        if not self.seen.is_set():
            self.at = time.perf_counter()
            self.seen.set()
        return Reply(text="benchmark answer")


def _settings(home: Path, servers: bool) -> None:
    entries = {
        kind: {
            "command": sys.executable,
            "args": ["-m", "tests.bench.mcp_servers", kind],
            "cwd": str(ROOT),
        }
        for kind in KINDS
    }
    path = home / "c" / "lull" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {"tools": {"toolSearch": True}}
    if servers:
        settings["mcpServers"] = entries
    path.write_text(json.dumps(settings))


def _first_request(fake: FakeServer, env: dict[str, str], cwd: Path) -> float:
    """Seconds from starting ``lull -p`` to its first request (it then runs to its end)."""
    watch = FirstRequest()
    fake.default_reply = Reply(respond=watch.respond)
    started = time.perf_counter()
    done = subprocess.run(
        [*lull_command(), "-p", "hello"], env=env, cwd=cwd, capture_output=True, text=True
    )
    if done.returncode != 0 or not watch.seen.is_set():
        print(f"  (lull -p exited {done.returncode}: {done.stderr.strip()[-300:]})")
        return 0.0
    return watch.at - started


def main(runs: int = 7) -> None:
    """Print the median time to the first request, with six servers and with none."""
    with tempfile.TemporaryDirectory() as tmp, FakeServer() as fake:
        home = Path(tmp)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LULL_"))},
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "c"),
            "XDG_DATA_HOME": str(home / "d"),
            "XDG_STATE_HOME": str(home / "s"),
            "XDG_CACHE_HOME": str(home / "k"),
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        cwd = home / "w"
        cwd.mkdir()
        kept = home / "s" / "lull" / "mcp-tools"
        none: list[float] = []
        six: list[float] = []
        cold: list[float] = []
        for _ in range(runs):
            _settings(home, servers=False)
            none.append(_first_request(fake, env, cwd))
            _settings(home, servers=True)
            shutil.rmtree(kept, ignore_errors=True)
            cold.append(_first_request(fake, env, cwd))  # no kept listing: also the warm-up
            six.append(_first_request(fake, env, cwd))
    base, with_six, waited = median(none), median(six), median(cold)
    print("-p with six MCP servers (wall time to the first request, seconds, medians)")
    print(f"{'run':<46}{'seconds':>9}{'vs none':>9}{'goal':>8}")
    print(f"{'no MCP servers':<46}{base:>9.3f}")
    share = ratio(with_six, base)
    verdict = goal(with_six / base, GOAL) if base else "-"
    print(
        f"{'six servers, listings kept (not waited for)':<46}{with_six:>9.3f}{share:>9}"
        f"{f'≤ {GOAL}x {verdict}':>14}"
    )
    print(
        f"{'six servers, no kept listing (waited for)':<46}{waited:>9.3f}{ratio(waited, base):>9}"
    )


if __name__ == "__main__":
    main()
