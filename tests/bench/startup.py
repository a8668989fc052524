"""Benchmark: wall time of `lull --help` and of a one-shot `lull -p` against the fake.

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


def _time(cmd: list[str], env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, check=True)
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
    print("startup benchmark (wall time, seconds)")
    print(f"{'command':<28}{'median':>10}{'min':>10}")
    for name, values in (("lull --help", help_times), ("lull -p (fake, 1 request)", print_times)):
        print(f"{name:<28}{statistics.median(values):>10.3f}{min(values):>10.3f}")


if __name__ == "__main__":
    main()
