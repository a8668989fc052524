"""Regex search engines for grep_search: ripgrep when installed, else pure Python.

Both return the same :class:`Match` list (sorted by path, then line) and
skip VCS/tool directories, binary files and symlinks.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lull.tools.files.text import BINARY_SNIFF_BYTES
from lull.tools.search.globpattern import glob_matches
from lull.tools.search.walk import SKIP_DIRS, walk_files

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


def iter_matches(
    regex: re.Pattern[str], root: Path, glob: str | None, stop: threading.Event | None = None
) -> Iterator[Match]:
    """Matching lines of every text file under ``root`` (optionally filtered by ``glob``),
    in path order."""
    for path in walk_files(root, stop=stop):
        if glob and not glob_matches(glob, _relative(path, root)):
            continue
        yield from _search_file(path, regex)


def python_search(
    regex: re.Pattern[str], root: Path, glob: str | None, stop: threading.Event | None = None
) -> list[Match]:
    """Search every text file under ``root`` (optionally filtered by ``glob``)."""
    return list(iter_matches(regex, root, glob, stop))


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a posix string (the name if root is the file)."""
    return path.name if path == root else path.relative_to(root).as_posix()


def rg_command(rg: str, pattern: str, target: str, glob: str | None) -> list[str]:
    """The ripgrep command line that searches like :func:`python_search` (JSON output).

    Run it in the directory searched with ``target`` ``.`` (or in a file's directory with
    its name): ripgrep matches a glob with a ``/`` against the path as given, so the paths
    must be relative for ``src/*.py`` to mean what it means to the Python engine.
    """
    cmd = [rg, "--json", "--hidden", "--no-ignore", "--no-messages"]
    for name in sorted(SKIP_DIRS):
        cmd += ["--glob", f"!{name}"]
    if glob:
        cmd += ["--glob", glob]
    return [*cmd, "--regexp", pattern, "--", target]


def _rg_text(data: dict[str, Any]) -> str | None:
    """A ``{"text": ...}`` or ``{"bytes": base64}`` value of ``rg --json`` as a str (bytes
    that are not UTF-8 kept with surrogate escapes, as Python names files)."""
    if "text" in data:
        return str(data["text"])
    if "bytes" in data:
        return os.fsdecode(base64.b64decode(data["bytes"]))
    return None


def parse_rg_json(output: bytes, base: Path) -> list[Match]:
    """The match events of ``rg --json`` output run in ``base``, sorted by path, then line."""
    matches: list[Match] = []
    for raw in output.splitlines():
        event = json.loads(raw)
        if event.get("type") != "match":
            continue
        data = event["data"]
        path_text = _rg_text(data["path"])
        line_text = _rg_text(data["lines"])
        if path_text is None or line_text is None:
            continue
        line = (
            line_text.rstrip("\r\n").encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        )
        matches.append(Match(base / path_text, data["line_number"], line))
    return sorted(matches, key=lambda m: (str(m.path), m.line))
