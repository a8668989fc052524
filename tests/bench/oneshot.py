"""Benchmark: the CPU of a one-shot ``lull -p`` with one tool round, next to its baselines.

Every command runs against the same loopback fake (``--demo``: "list files" asks for one
directory listing, then answers), alternated, ``runs`` times each; the figure is the median
CPU time (user + system, from the kernel's accounting of the child), the steady figure on a
busy machine. Baselines measured in the same run: a bare ``python -c "import anthropic"``
(and ``openai``), and Claude Code's ``claude -p`` when it is installed (``LULL_BENCH_CLAUDE``
names its binary, else ``claude`` on the PATH).

Claude Code is only run where nothing can leave the machine: inside a fresh network namespace
(``unshare -n``, loopback only) that holds the fake too; where no namespace can be made it is
left out, and the table says so.

Prints figures and the issue's goals; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.bench.support import ROOT, fake_process, goal, median, ratio
from tests.e2e.conftest import lull_command

PROMPT = "list files"
CLAUDE_GOAL = {"anthropic": 1.3, "openai": 1.0}  # lull's CPU vs Claude Code's, at most
START_GOAL = 1.5  # `lull --help` / `--version` vs a bare `python -c pass`, at most


def claude_binary() -> str | None:
    """Claude Code's binary, if installed."""
    named = os.environ.get("LULL_BENCH_CLAUDE")
    if named:
        return named if Path(named).exists() else None
    return shutil.which("claude")


def measure(command: Sequence[str], env: Mapping[str, str], cwd: Path) -> float:
    """CPU seconds (user + system) of one run of ``command``."""
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(
            list(command), env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            out.seek(0)
            tail = out.read()[-300:].decode(errors="replace")
            print(f"  ({command[0]} exited {process.returncode}: {tail.strip()})", file=sys.stderr)
    return usage.ru_utime + usage.ru_stime


def _commands(url: str, home: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    base = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANTHROPIC_", "OPENAI_", "LULL_"))
    }
    base.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "c"),
        XDG_DATA_HOME=str(home / "d"),
        XDG_STATE_HOME=str(home / "s"),
    )
    anthropic = {**base, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "bench"}
    openai = {**base, "OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "bench"}
    python = sys.executable
    commands = {
        "python -c pass": ([python, "-c", "pass"], base),
        'python -c "import anthropic"': ([python, "-c", "import anthropic"], base),
        'python -c "import openai"': ([python, "-c", "import openai"], base),
        "lull --help": ([*lull_command(), "--help"], base),
        "lull --version": ([*lull_command(), "--version"], base),
        "lull -p (anthropic wire)": ([*lull_command(), "-p", PROMPT], anthropic),
        "lull -p (openai wire)": ([*lull_command(), "-p", PROMPT, "-m", "gpt-5"], openai),
    }
    claude = claude_binary()
    if claude and os.environ.get("LULL_BENCH_NETNS") == "1":
        quiet = {
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        commands["claude -p (Claude Code)"] = (
            [claude, "-p", PROMPT, "--model", "claude-sonnet-4-5"],
            {**anthropic, **quiet},
        )
    return commands


def collect(runs: int) -> dict[str, list[float]]:
    """Alternated runs of every command: name -> CPU seconds of each run."""
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp, fake_process("--demo") as url:
        home = Path(tmp)
        workspace = home / "ws"
        workspace.mkdir()
        for name in ("README.md", "main.py", "util.py"):
            (workspace / name).write_text(f"# {name}\n")
        commands = _commands(url, home)
        for name, (command, env) in commands.items():  # warm the page cache and .pyc files
            measure(command, env, workspace)
            results[name] = []
        for _ in range(runs):
            for name, (command, env) in commands.items():
                results[name].append(measure(command, env, workspace))
    return results


def _isolated(runs: int) -> dict[str, list[float]] | None:
    """:func:`collect` run inside a new network namespace (loopback only), if one can be made."""
    unshare = shutil.which("unshare")
    if unshare is None or claude_binary() is None:
        return None
    script = "ip link set lo up && exec " + " ".join(
        [sys.executable, "-m", "tests.bench.oneshot", "--inside", "--runs", str(runs)]
    )
    done = subprocess.run(
        [unshare, "-n", "sh", "-c", script],
        cwd=ROOT,
        env={**os.environ, "LULL_BENCH_NETNS": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    loaded: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def main(runs: int = 5) -> None:
    """Print the one-shot figures with their ratios and goals."""
    started = time.monotonic()
    results = _isolated(runs)
    isolated = results is not None
    if results is None:
        results = collect(runs)
    cpu = {name: median(rows) for name, rows in results.items()}
    print(f"one-shot benchmark: median CPU of {runs} alternated runs, 1 tool round, loopback fake")
    print(f"{'command':<34}{'cpu s':>8}{'min':>8}")
    for name, rows in results.items():
        print(f"{name:<34}{cpu[name]:>8.3f}{min(rows):>8.3f}")
    claude = cpu.get("claude -p (Claude Code)", 0.0)
    if not claude:
        why = "not installed" if claude_binary() is None else "no network namespace to run it in"
        print(f"Claude Code: {why}; ratios against the SDK import only")
    for wire, sdk in (("anthropic", "anthropic"), ("openai", "openai")):
        lull = cpu[f"lull -p ({wire} wire)"]
        baseline = cpu[f'python -c "import {sdk}"']
        line = f"lull -p, {wire} wire: {ratio(lull, baseline)} of `import {sdk}`"
        if claude:
            limit = CLAUDE_GOAL[wire]
            line += f", {ratio(lull, claude)} of Claude Code (goal <= {limit:.1f}x: "
            line += f"{goal(lull / claude, limit)})"
        print(line)
    bare = cpu["python -c pass"]
    for flag in ("--help", "--version"):
        mine = cpu[f"lull {flag}"]
        print(
            f"lull {flag}: {ratio(mine, bare)} of a bare interpreter "
            f"(goal <= {START_GOAL:.1f}x: {goal(mine / bare, START_GOAL)})"
        )
    where = "in a network namespace" if isolated else "on the host"
    print(f"({where}, {time.monotonic() - started:.0f} s)")


def _inside(runs: int) -> None:
    """Inside the namespace: collect and print the raw figures as one JSON line."""
    results = collect(runs)
    print(json.dumps(results))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--inside", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    if arguments.inside:
        _inside(arguments.runs)
    else:
        main(arguments.runs)
