"""Real agent runs as cost-benchmark workloads: public mini-swe-agent trajectories, converted.

The source is the ``.traj.json`` files that ``SWE-agent/mini-swe-agent`` publishes under
``output/deepseek_chat_*`` (deepseek-chat solving SWE-bench tasks in real repositories;
pinned at commit :data:`PINNED`). Each run becomes a workload of the cost benchmark
(``tests/bench/cost.py``):

- every real step in order: the assistant's real text, its real shell command, and the
  seconds between the run's real responses (their timestamps);
- every real command output returned with its real text: the output is a file of the
  workspace (``.traj/NNNN.out``) and the call is ``cat`` of that file followed by the real
  command as a comment (its newlines made spaces), so the arguments weigh what they weighed;
- ``needs`` derived from what later assistant text quotes: a step needs an earlier output
  when its text or command contains a distinctive line of that output (at least
  :data:`QUOTE_CHARS` characters, not in the task's own text; the latest output holding the
  line is the one needed);
- each run alone (one long autonomous turn), and cut into three turns with pauses between
  them (:data:`PAUSES`, 2-70 minutes), the second and third starting with "go on".

Run: ``python -m tests.bench.trajectories SOURCE [--out DIR] [--limit N]``, where SOURCE is
a folder of ``.traj.json`` files or a git directory holding :data:`PINNED` (``git show``
reads the files from it). The converted runs in ``workloads/real/`` are gzipped JSON.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PINNED = "ec0e8e84"
"""The mini-swe-agent commit the bundled runs were converted from."""
FOLDERS = ("output/deepseek_chat_dev/", "output/deepseek_chat_test_1-100/")
QUOTE_CHARS = 30
MAX_STEP_SECONDS = 600.0
PAUSES = ((2.0, 35.0), (10.0, 70.0), (45.0, 5.0), (20.0, 60.0), (70.0, 15.0), (5.0, 50.0))
"""(first, second) pause in minutes for the cut variant, by the run's position."""
GO_ON = "Go on with the task where you left off."
REAL = Path(__file__).with_name("workloads") / "real"


class TrajectoryError(Exception):
    """A trajectory that cannot be converted; the message names the file and why."""


@dataclass(frozen=True)
class RealStep:
    """One real model response: its text, its command (None: the final answer), the output
    the command printed, and the seconds since the previous response."""

    text: str
    command: str | None
    output: str
    seconds: float


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _command(message: dict[str, Any]) -> str | None:
    for call in message.get("tool_calls") or []:
        try:
            arguments = json.loads(call["function"]["arguments"])
        except (KeyError, TypeError, ValueError):
            continue
        if isinstance(arguments, dict) and isinstance(arguments.get("command"), str):
            return str(arguments["command"])
    actions = (message.get("extra") or {}).get("actions") or []
    return next(
        (str(a["command"]) for a in actions if isinstance(a, dict) and "command" in a), None
    )


def real_steps(trajectory: dict[str, Any]) -> tuple[str, list[RealStep]]:
    """The task prompt and the steps of one mini-swe-agent trajectory."""
    messages = [m for m in trajectory.get("messages", []) if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    if not users:
        raise TrajectoryError("no user message")
    prompt = _content(users[0])
    steps: list[RealStep] = []
    last_time: float | None = None
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        stamp = ((message.get("extra") or {}).get("timestamp")) or None
        seconds = 5.0
        if isinstance(stamp, int | float) and last_time is not None:
            seconds = min(max(float(stamp) - last_time, 1.0), MAX_STEP_SECONDS)
        last_time = float(stamp) if isinstance(stamp, int | float) else last_time
        command = _command(message)
        follow = messages[index + 1] if index + 1 < len(messages) else {}
        output = _content(follow) if follow.get("role") in ("tool", "user") else ""
        steps.append(RealStep(_content(message), command, output, seconds))
    while steps and steps[-1].command is not None and "COMPLETE_TASK" in steps[-1].command:
        steps[-1] = RealStep(steps[-1].text, None, "", steps[-1].seconds)
    if len(steps) < 2 or steps[-1].command is not None:
        steps.append(RealStep("The task is done.", None, "", 5.0))
    steps = [s for s in steps[:-1] if s.command is not None] + [steps[-1]]
    return prompt, steps


def derive_needs(prompt: str, steps: list[RealStep]) -> list[list[int]]:
    """For each step, the earlier calls whose output its text or command quotes."""
    known = {line.strip() for line in prompt.splitlines()}
    latest: dict[str, int] = {}
    needs: list[list[int]] = []
    for number, step in enumerate(steps):
        said = step.text + "\n" + (step.command or "")
        needed = sorted({k for line, k in latest.items() if line in said})
        needs.append(needed)
        for line in step.output.splitlines():
            line = line.strip()
            if len(line) >= QUOTE_CHARS and line not in known:
                latest[line] = number
    return needs


def _one_line(command: str) -> str:
    return " ".join(command.split())


def _step(number: int, step: RealStep, needs: list[int]) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "seconds": round(step.seconds, 1),
        "thinking_tokens": 0,
        "text_tokens": max(1, len(step.text) // 4),
        "text": step.text,
    }
    if step.command is not None:
        command = f"cat .traj/{number:04d}.out  # {_one_line(step.command)}"
        raw["calls"] = [{"tool": "run_shell_command", "arguments": {"command": command}}]
    if needs:
        raw["needs"] = needs
    return raw


def _answer() -> dict[str, Any]:
    return {"seconds": 5.0, "thinking_tokens": 0, "text_tokens": 40}


def workloads(name: str, position: int, trajectory: dict[str, Any]) -> list[dict[str, Any]]:
    """The run alone (one turn) and cut into three turns with pauses, as workload objects."""
    prompt, steps = real_steps(trajectory)
    needs = derive_needs(prompt, steps)
    files = {
        f".traj/{n:04d}.out": step.output.split("\n")
        for n, step in enumerate(steps)
        if step.command is not None
    }
    raws = [_step(n, s, needs[n]) for n, s in enumerate(steps)]
    max_turns = len(raws) + 20
    source = f"mini-swe-agent@{PINNED} {name}"
    alone = {
        "name": f"real run {name}, one turn",
        "description": f"{source}: {len(raws)} real steps in one autonomous turn.",
        "max_turns": max_turns,
        "files": files,
        "turns": [{"pause_minutes": 0, "prompt": prompt, "steps": raws}],
    }
    first, second = PAUSES[position % len(PAUSES)]
    a, b = len(raws) // 3, 2 * len(raws) // 3
    cut = {
        "name": f"real run {name}, three turns",
        "description": (
            f"{source}: the same steps cut into three turns after pauses of {first:g} and "
            f"{second:g} minutes."
        ),
        "max_turns": max_turns,
        "files": files,
        "turns": [
            {"pause_minutes": 0, "prompt": prompt, "steps": [*raws[:a], _answer()]},
            {"pause_minutes": first, "prompt": GO_ON, "steps": [*raws[a:b], _answer()]},
            {"pause_minutes": second, "prompt": GO_ON, "steps": raws[b:]},
        ],
    }
    return [alone, cut]


def _sources(source: Path) -> list[tuple[str, dict[str, Any]]]:
    """(run name, trajectory) from a folder of files or a git directory at :data:`PINNED`."""
    if source.is_dir() and not (source / "HEAD").exists():
        return [
            (path.name.removesuffix(".traj.json"), json.loads(path.read_text("utf-8")))
            for path in sorted(source.rglob("*.traj.json"))
        ]
    git = ["git", "--git-dir", str(source)]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "--name-only", PINNED, *FOLDERS],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    runs = []
    for path in (p for p in listing if p.endswith(".traj.json")):
        shown = subprocess.run(
            [*git, "show", f"{PINNED}:{path}"], capture_output=True, text=True, check=False
        )
        if shown.returncode != 0:  # a snapshot may list its largest files without them
            print(
                f"trajectories: {path}: not in {source} ({shown.stderr.strip()})", file=sys.stderr
            )
            continue
        runs.append((Path(path).name.removesuffix(".traj.json"), json.loads(shown.stdout)))
    return runs


def convert(source: Path, out: Path, limit: int | None = None, every: int = 1) -> list[Path]:
    """Convert the runs in ``source`` (every ``every``-th, at most ``limit``) into gzipped
    workloads under ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    runs = _sources(source)[::every]
    for position, (name, trajectory) in enumerate(runs[:limit]):
        try:
            pair = workloads(name, position, trajectory)
        except TrajectoryError as exc:
            print(f"trajectories: {name}: {exc}", file=sys.stderr)
            continue
        for kind, workload in zip(("alone", "cut"), pair, strict=True):
            path = out / f"{name}.{kind}.json.gz"
            data = json.dumps(workload, separators=(",", ":")).encode()
            path.write_bytes(gzip.compress(data, 9, mtime=0))
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    """Convert trajectories from the command line."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.trajectories")
    parser.add_argument("source", type=Path, help="a folder of .traj.json or a git directory")
    parser.add_argument("--out", type=Path, default=REAL)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--every", type=int, default=1, help="take every N-th run")
    args = parser.parse_args(argv)
    for path in convert(args.source, args.out, args.limit, args.every):
        print(path)


if __name__ == "__main__":
    main()
