"""Running a grep_search in a child process with a time limit, killed when cancelled.

ripgrep runs when it is installed (its regex engine cannot backtrack forever); otherwise,
or when ripgrep rejects a Python-only pattern (look-arounds, backreferences), the Python
engine runs in :mod:`lull.tools.search.worker`. Either way the search is a process that is
killed at the time limit or the moment the turn is cancelled, so lull never hangs on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lull.tools.search.engines import Match, parse_rg_json, rg_command

Engine = Literal["ripgrep", "python"]

_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
_BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from lull.tools.search.worker import main; sys.exit(main())"
)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found (sorted by path, then line); ``timed_out`` if it was stopped at
    the time limit (``matches`` is then empty); ``engine`` is the one that answered."""

    matches: list[Match]
    timed_out: bool
    engine: Engine


@dataclass(frozen=True, slots=True)
class _Finished:
    """A child process that exited: its return code, stdout and stderr."""

    returncode: int
    stdout: bytes
    stderr: bytes


async def _run_bounded(
    cmd: list[str], seconds: float, env: Mapping[str, str], cwd: Path | None = None
) -> _Finished | None:
    """Run ``cmd`` (in ``cwd``); None if it did not finish within ``seconds`` (it is killed
    then, and at once if the caller is cancelled)."""
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), max(seconds, 0.001))
    except TimeoutError:
        _kill(proc)
        await proc.wait()
        return None
    except asyncio.CancelledError:
        _kill(proc)
        raise
    return _Finished(proc.returncode or 0, out, err)


def _kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL a search process (it holds nothing worth a graceful stop)."""
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def worker_command(pattern: str, root: Path, glob: str | None) -> list[str]:
    """The command that runs the Python engine in an isolated interpreter (``-I``: neither
    the workspace nor ``PYTHONPATH`` can put modules in its way)."""
    request = json.dumps({"pattern": pattern, "root": str(root), "glob": glob})
    return [sys.executable, "-I", "-c", _BOOTSTRAP, _PACKAGE_ROOT, request]


def _parse_worker(output: bytes) -> list[Match]:
    """The JSON lines the worker printed, as matches sorted by path, then line."""
    matches = []
    for raw in output.splitlines():
        path, line, text = json.loads(raw)
        matches.append(Match(Path(path), int(line), str(text)))
    return sorted(matches, key=lambda m: (str(m.path), m.line))


async def run_search(
    pattern: str,
    root: Path,
    glob: str | None,
    time_limit: float,
    env: Mapping[str, str],
    *,
    use_ripgrep: bool = True,
) -> SearchResult:
    """Search ``root`` for ``pattern`` within ``time_limit`` seconds (ripgrep first when
    ``use_ripgrep`` and it is installed). Raises RuntimeError if the engine failed."""
    deadline = time.monotonic() + time_limit
    rg = shutil.which("rg", path=env.get("PATH")) if use_ripgrep else None
    if rg is not None:
        base, target = (root, ".") if root.is_dir() else (root.parent, root.name)
        command = rg_command(rg, pattern, target, glob)
        done = await _run_bounded(command, time_limit, env, cwd=base)
        if done is None:
            return SearchResult([], True, "ripgrep")
        if done.returncode in (0, 1):
            return SearchResult(parse_rg_json(done.stdout, base), False, "ripgrep")
        # ripgrep rejected the pattern (Python-only syntax): the Python engine decides
    remaining = deadline - time.monotonic()
    done = await _run_bounded(worker_command(pattern, root, glob), remaining, env)
    if done is None:
        return SearchResult([], True, "python")
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(detail[-1] if detail else f"exit code {done.returncode}")
    return SearchResult(_parse_worker(done.stdout), False, "python")
