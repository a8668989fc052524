"""Benchmark: ``lull -p --resume`` of an 8,000-message session next to a fresh ``lull -p``.

The model's window is set to 1M tokens (``model.contextWindow`` in the user settings): 8,000
messages of a working session are ~190k tokens, more than a 200k window takes without a
compression. The session is made the way a user makes one: its messages written to a session
file, then one ``lull -p --resume`` over it (which counts its tokens once and saves the
counts when they could matter). Then, alternated, a fresh ``lull -p`` and a resume of that
session answer one prompt each against the fake (in its own process). Wall time is the
figure (a resume is waited for); lull's CPU time is printed beside it, with its ratio (on a
busy machine the wall ratio moves with the load: the fake's answer, in its own process, is
waited for too; it checks and hashes only what a request does not repeat of a recent one,
~20 ms for a resumed request of 1 MB).

Prints figures, the ratio and the issue's goal; asserts nothing.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from lull.engine.sessions.store import SessionStore
from tests.bench.history import describe, history, write_session
from tests.bench.support import Run, fake_process, goal, median, run_command
from tests.e2e.conftest import lull_command

MESSAGES = 8_000
RESUME_GOAL = 1.3  # a resume's wall time vs a fresh session's, at most
SESSION_ID = "8000aaaa-0000-4000-8000-000000000000"


def pair_ratios(resumed: list[float], fresh: list[float]) -> list[float]:
    """Each resume's figure over the fresh run just before it: the two ran back to back, on a
    machine whose speed drifts (a busy one) more alike than any two runs further apart."""
    return [r / f for r, f in zip(resumed, fresh, strict=True) if f > 0]


def main(runs: int = 7) -> None:
    """Print the resume figures."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, fake_process() as url:
        home = Path(tmp)
        workspace = home / "ws"
        workspace.mkdir()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))},
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "c"),
            "XDG_DATA_HOME": str(home / "d"),
            "XDG_STATE_HOME": str(home / "s"),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "bench",
        }
        (home / "c" / "lull").mkdir(parents=True)
        settings = '{"model": {"contextWindow": 1000000}}'
        (home / "c" / "lull" / "settings.json").write_text(settings)
        store = SessionStore(home / "d" / "lull" / "sessions", workspace)
        messages = history(10**9, small=True, messages_at_most=MESSAGES)
        write_session(store.path_for(SESSION_ID), messages, workspace)
        fresh_command = [*lull_command(), "-p", "hello"]
        resume_command = [*lull_command(), "-p", "hello", "--resume", SESSION_ID]
        first = run_command(resume_command, env, workspace)  # counts once, saves the counts
        fresh: list[Run] = []
        resumed: list[Run] = []
        for _ in range(runs):
            fresh.append(run_command(fresh_command, env, workspace))
            resumed.append(run_command(resume_command, env, workspace))
    print(f"resume benchmark: {describe(messages)}, median of {runs} alternated runs")
    print(f"{'command':<44}{'wall s':>8}{'cpu s':>8}")
    rows = (
        ("lull -p (fresh session)", fresh),
        (f"lull -p --resume ({MESSAGES:,} messages)", resumed),
    )
    for label, values in rows:
        wall, cpu = median([r.wall for r in values]), median([r.cpu for r in values])
        print(f"{label:<44}{wall:>8.3f}{cpu:>8.3f}")
    print(f"{'first resume (counts the history once)':<44}{first.wall:>8.3f}{first.cpu:>8.3f}")
    walls = pair_ratios([r.wall for r in resumed], [r.wall for r in fresh])
    print(
        f"resume vs fresh (wall): {median(walls):.2f}x, the median of each resume over the fresh "
        f"run before it ({min(walls):.2f}-{max(walls):.2f}x) "
        f"(goal <= {RESUME_GOAL}x: {goal(median(walls), RESUME_GOAL)})"
    )
    cpus = pair_ratios([r.cpu for r in resumed], [r.cpu for r in fresh])
    print(
        f"resume vs fresh (lull's CPU, the steady figure on a busy machine): "
        f"{median(cpus):.2f}x ({goal(median(cpus), RESUME_GOAL)}); the wall time also holds "
        "the fake's answer (in its own process)"
    )
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
