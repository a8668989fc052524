"""What the benchmarks share: the fake in its own process, timing a command, printing ratios.

Figures are CPU time where the machine may be busy (it is the steady figure), wall time where
waiting is the point; every figure is printed next to a baseline measured in the same run, as
a ratio, and nothing is asserted (a busy machine must not fail anything).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def fake_process(*args: str) -> Iterator[str]:
    """``python -m tests.fakes ARGS`` on a free port, for the duration; yields its base URL.

    In its own process, the fake's work (parsing megabyte bodies, pacing streams) neither
    counts as lull's CPU nor competes with it for the GIL.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes", "--port", "0", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        yield first.rsplit(" on ", 1)[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass(frozen=True)
class Run:
    """One finished command: wall seconds and CPU seconds (user + system) it used."""

    wall: float
    cpu: float
    code: int


def run_command(command: Sequence[str], env: Mapping[str, str], cwd: Path, stdin: str = "") -> Run:
    """Run ``command`` to completion; its wall and CPU time (from the kernel's accounting)."""
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(
        list(command), env=dict(env), cwd=cwd, input=stdin, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    if done.returncode != 0:
        print(f"  ({command[0]} exited {done.returncode}: {done.stderr.strip()[-300:]})")
    return Run(wall, cpu, done.returncode)


def median(values: Sequence[float]) -> float:
    """The median (0 for no values)."""
    return statistics.median(values) if values else 0.0


def ratio(value: float, baseline: float) -> str:
    """``value / baseline`` as ``1.23x`` ("-" without a baseline)."""
    return f"{value / baseline:.2f}x" if baseline > 0 else "-"


def goal(value: float, limit: float) -> str:
    """ "ok" when ``value`` is within ``limit``, else "MISSED"."""
    return "ok" if value <= limit else "MISSED"
