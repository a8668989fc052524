"""Benchmark: wall time of `lull --help`, of a one-shot `lull -p` against the fake, and of
`lull --plain` from start to handling a typed `/quit` (the line mode's time to a prompt: the
SDK is imported in the background, so it is not paid here).

Prints figures; asserts nothing about time (a busy machine must not fail CI).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from tests.e2e.conftest import lull_command
from tests.fakes import FakeServer, Reply


def _time(
    cmd: list[str], env: dict[str, str], cwd: Path, runs: int, stdin: str = ""
) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            cmd, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, check=True
        )
        times.append(time.perf_counter() - started)
    return times


def main(runs: int = 5) -> None:
    """Print median and min wall times."""
    with tempfile.TemporaryDirectory() as tmp, FakeServer() as fake:
        home = Path(tmp)
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(home / "c"),
            "XDG_DATA_HOME": str(home / "d"),
            "XDG_STATE_HOME": str(home / "s"),
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        help_times = _time([*lull_command(), "--help"], env, home, runs)
        fake.default_reply = Reply(text="benchmark answer")
        print_times = _time([*lull_command(), "-p", "hello"], env, home, runs)
        plain_times = _time([*lull_command(), "--plain"], env, home, runs, stdin="/quit\n")
    print("startup benchmark (wall time, seconds)")
    print(f"{'command':<30}{'median':>10}{'min':>10}")
    rows = (
        ("lull --help", help_times),
        ("lull -p (fake, 1 request)", print_times),
        ("lull --plain, then /quit", plain_times),
    )
    for name, values in rows:
        print(f"{name:<30}{statistics.median(values):>10.3f}{min(values):>10.3f}")


if __name__ == "__main__":
    main()
