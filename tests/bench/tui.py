"""Benchmark: the TUI's time to interactive, and streaming a long markdown answer.

1. Time to interactive of the installed ``lull`` in a pseudo-terminal: the
   ``LULL_TUI_BENCH`` hook makes lull write when its first frame is painted
   (the prompt is focused and takes keys) and when the runtime is ready (the
   SDK is loaded), then exit. Times are from process spawn.
2. A 20,000-character markdown answer streamed by the fake at 2,000
   characters per second (and once as fast as it can), rendered by the real
   app (headless): total time until the answer has settled on screen, and
   the worst event-loop stall seen by a 5 ms ticker while it streamed; next
   to a 2,000-character answer's (the stall must stay flat as answers grow). A
   stall is measured twice: in wall time (what a user sees; on a busy machine it
   includes the time the process waited for a core) and in the CPU time the UI
   thread spent in it (the work lull did without letting the loop run, the steady
   figure on a busy machine). The fake runs in its own process here: in-process,
   its paced sends would compete with the UI for the GIL and the figures would
   measure that.

Prints figures; asserts nothing about time (a busy machine must not fail CI).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

from tests.bench.support import goal, ratio
from tests.e2e.conftest import lull_command
from tests.fakes import FakeServer

ROOT = Path(__file__).resolve().parents[2]

ANSWER_CHARS = 20_000
BASELINE_CHARS = 2_000  # the baseline: a short answer's worst stall
STALL_GOALS = (0.1, 0.2)  # seconds: paced, as fast as possible
CHARS_PER_SECOND = 2_000
CHUNK = 20
TICK = 0.005


def _environment(home: Path, fake: FakeServer, bench_file: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "c"),
        "XDG_DATA_HOME": str(home / "d"),
        "XDG_STATE_HOME": str(home / "s"),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "bench",
        "TERM": "xterm-256color",
        "LULL_TUI_BENCH": str(bench_file),
    }


def _drain(fd: int) -> None:
    """Read the terminal's output until it closes (a full pty would block lull)."""
    while True:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def time_to_interactive(home: Path, fake: FakeServer) -> tuple[float, float]:
    """(seconds to first paint, seconds to a ready runtime) of one ``lull`` start."""
    bench_file = home / "marks"
    bench_file.unlink(missing_ok=True)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    reader = threading.Thread(target=_drain, args=(master,), daemon=True)
    reader.start()
    started = time.time()
    process = subprocess.Popen(
        lull_command(),
        cwd=home,
        env=_environment(home, fake, bench_file),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    try:
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    marks = dict(line.split() for line in bench_file.read_text().splitlines())
    return float(marks["paint"]) - started, float(marks["ready"]) - started


def markdown_answer(size: int = ANSWER_CHARS) -> str:
    """A realistic answer: headings, prose, lists, code blocks and a table, ``size`` chars."""
    parts: list[str] = []
    section = 0
    while sum(len(p) for p in parts) < size:
        section += 1
        parts.append(f"## Step {section}: refactor the loader\n\n")
        parts.append(
            "The loader reads **every** file twice; we cache the parsed tree and keep "
            "`load()` pure, so tests can call it without a disk. " * 3 + "\n\n"
        )
        parts.append("- read the config\n- validate it\n- build the `Runtime`\n\n")
        parts.append(
            "```python\ndef load(path: Path) -> Tree:\n    text = path.read_text()\n"
            "    return parse(text)\n```\n\n"
        )
        parts.append("| file | lines |\n|---|---|\n| loader.py | 120 |\n| tree.py | 80 |\n\n")
    return "".join(parts)[:size]


async def _stream_once(workspace: Path, expected: str) -> tuple[float, float, float]:
    """(seconds until the answer settled, worst stall in wall seconds, worst stall in the UI
    thread's CPU seconds) for the next scripted answer."""
    from lull.runtime import RunOptions
    from lull.ui.shared.history import History
    from lull.ui.tui.app import LullApp
    from lull.ui.tui.widgets.assistant_message import AssistantMessage

    options = RunOptions(workspace=workspace)
    app = LullApp(options, history=History(workspace / "history"), detect=lambda: [])
    worst = worst_cpu = 0.0
    async with app.run_test(size=(100, 40)) as pilot:
        while app._chat is None or app.chat.runtime is None:
            await pilot.pause(0.05)
        stop = asyncio.Event()

        async def ticker() -> None:
            nonlocal worst, worst_cpu
            while not stop.is_set():
                before, cpu_before = time.perf_counter(), time.thread_time()
                await asyncio.sleep(TICK)
                worst = max(worst, time.perf_counter() - before - TICK)
                worst_cpu = max(worst_cpu, time.thread_time() - cpu_before)

        monitor = asyncio.create_task(ticker())
        started = time.perf_counter()
        app.prompt.insert("write the long plan")
        await pilot.press("enter")
        while app.chat.busy or not app.query(AssistantMessage):  # settled: stream stopped
            await asyncio.sleep(0.01)
        await pilot.pause()  # and painted
        total = time.perf_counter() - started
        stop.set()
        await monitor
        assert app.query_one(AssistantMessage).text == expected
    return total, worst, worst_cpu


def _fake_process(script: Path) -> tuple[subprocess.Popen[str], str]:
    """``python -m tests.fakes`` serving ``script`` on a free port; (process, base URL)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes", "--port", "0", "--script", str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    return process, first.rsplit(" on ", 1)[1].split()[0]


def streaming(home: Path) -> list[tuple[str, float, float, float]]:
    """Rows (case, total seconds, worst stall in wall and in CPU seconds) for paced and
    unpaced streams, and for the baseline: a short answer (:data:`BASELINE_CHARS`), paced."""
    paced = CHUNK / CHARS_PER_SECOND
    cases = (
        (f"{BASELINE_CHARS:,} chars, {CHARS_PER_SECOND:,} chars/s", paced, BASELINE_CHARS),
        (f"{ANSWER_CHARS:,} chars, {CHARS_PER_SECOND:,} chars/s", paced, ANSWER_CHARS),
        (f"{ANSWER_CHARS:,} chars, as fast as possible", 0.0, ANSWER_CHARS),
    )
    texts = [markdown_answer(size) for _, _, size in cases]
    script = home / "script.json"
    replies = [
        {"text": text, "chunk_size": CHUNK, "chunk_delay": delay}
        for text, (_, delay, _) in zip(texts, cases, strict=True)
    ]
    script.write_text(json.dumps(replies))
    process, url = _fake_process(script)
    try:
        os.environ.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="bench")
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            os.environ[name] = str(home / name.lower())
        workspace = home / "ws"
        workspace.mkdir(exist_ok=True)
        rows = []
        for text, (label, _, _) in zip(texts, cases, strict=True):
            total, worst, worst_cpu = asyncio.run(_stream_once(workspace, text))
            rows.append((label, total, worst, worst_cpu))
    finally:
        process.terminate()
        process.wait(timeout=10)
    return rows


def main(runs: int = 5) -> None:
    """Print time to interactive and streaming figures."""
    with tempfile.TemporaryDirectory() as tmp, FakeServer() as fake:
        home = Path(tmp)
        starts = [time_to_interactive(home, fake) for _ in range(runs)]
    with tempfile.TemporaryDirectory() as tmp:
        rows = streaming(Path(tmp))
    paints, readies = [p for p, _ in starts], [r for _, r in starts]
    print("TUI benchmark (wall time, seconds)")
    print(f"{'lull (TUI) start':<34}{'median':>10}{'min':>10}")
    for label, values in (("first paint (interactive)", paints), ("runtime ready", readies)):
        print(f"{'  ' + label:<34}{statistics.median(values):>10.3f}{min(values):>10.3f}")
    print(f"{'markdown answer streamed':<40}{'total':>10}{'worst stall':>14}{'(cpu)':>8}")
    for label, total, worst, worst_cpu in rows:
        print(f"{'  ' + label:<40}{total:>10.3f}{worst:>14.3f}{worst_cpu:>8.3f}")
    baseline, baseline_cpu = rows[0][2], rows[0][3]
    for (label, _, worst, worst_cpu), limit in zip(rows[1:], STALL_GOALS, strict=True):
        print(
            f"worst stall, {label}: {worst:.3f} s, {ratio(worst, baseline)} of the short "
            f"answer's (goal <= {limit} s: {goal(worst, limit)}); UI thread CPU "
            f"{worst_cpu:.3f} s, {ratio(worst_cpu, baseline_cpu)} (goal: {goal(worst_cpu, limit)})"
        )
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
