"""Regex search engines for grep_search: ripgrep when installed, else pure Python.

Both return the same :class:`Match` list (sorted by path, then line) and
skip VCS/tool directories, binary files and symlinks.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from tools.files import BINARY_SNIFF_BYTES
from tools.globpattern import glob_matches
from tools.walk import SKIP_DIRS, walk_files

MAX_FILE_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Match:
    """One matching line."""

    path: Path
    line: int
    text: str


def _search_file(path: Path, regex: re.Pattern[str]) -> list[Match]:
    """Matching lines of one file; nothing for binary, huge or unreadable files."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return []
        data = path.read_bytes()
    except OSError:
        return []
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return []
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    return [
        Match(path, number, line.removesuffix("\r"))
        for number, line in enumerate(lines, start=1)
        if regex.search(line.removesuffix("\r"))
    ]


def python_search(
    regex: re.Pattern[str], root: Path, glob: str | None, stop: threading.Event | None = None
) -> list[Match]:
    """Search every text file under ``root`` (optionally filtered by ``glob``)."""
    matches: list[Match] = []
    for path in walk_files(root, stop=stop):
        if glob and not glob_matches(glob, _relative(path, root)):
            continue
        matches.extend(_search_file(path, regex))
    return matches


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a posix string (the name if root is the file)."""
    return path.name if path == root else path.relative_to(root).as_posix()


def rg_search(pattern: str, root: Path, glob: str | None) -> list[Match] | None:
    """Search with ripgrep; None when rg is missing or rejects the pattern."""
    rg = shutil.which("rg")
    if rg is None:
        return None
    cmd = [rg, "--json", "--hidden", "--no-ignore", "--no-messages"]
    for name in sorted(SKIP_DIRS):
        cmd += ["--glob", f"!{name}"]
    if glob:
        cmd += ["--glob", glob]
    cmd += ["--regexp", pattern, "--", str(root)]
    proc = subprocess.run(cmd, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    if proc.returncode not in (0, 1):
        return None
    return sorted(_parse_rg_json(proc.stdout), key=lambda m: (str(m.path), m.line))


def _parse_rg_json(output: bytes) -> list[Match]:
    """The match events of ``rg --json`` output."""
    matches: list[Match] = []
    for raw in output.splitlines():
        event = json.loads(raw)
        if event.get("type") != "match":
            continue
        data = event["data"]
        path_text = data["path"].get("text")
        line_text = data["lines"].get("text")
        if path_text is None or line_text is None:
            continue
        matches.append(Match(Path(path_text), data["line_number"], line_text.rstrip("\r\n")))
    return matches
