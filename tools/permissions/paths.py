"""Paths as path rules see them: a rule's glob against a path (or a directory above it),
a shell word as the absolute path (or the files) it names, a path as written and as resolved,
and whether a tree a command searches may hold what a rule covers."""

from __future__ import annotations

import contextlib
import glob
import os
import re
from collections.abc import Iterator
from pathlib import Path

from lull.tools.permissions.shell_forms import has_glob
from lull.tools.search.globpattern import compile_glob, glob_matches

MAX_EXPANDED = 500
"""How many files one shell pattern word (``cat sec*``) is expanded to when rules check it."""


def path_matches(pattern: str, path: Path, workspace: Path) -> bool:
    """Whether ``path`` (absolute) or a directory above it matches a path rule's pattern."""
    pattern = pattern.strip()
    if pattern.startswith("//"):
        return _glob_any(pattern[1:], str(path))
    if pattern.startswith("~/"):
        return _glob_any(str(Path.home()) + pattern[1:], str(path))
    if not path.is_relative_to(workspace):
        return False
    relative = path.relative_to(workspace).as_posix()
    anchored = pattern.startswith(("./", "/"))  # Claude Code's ./path and /path: from the root
    pattern = pattern.removeprefix("./").lstrip("/") or "**"
    parts = relative.split("/") if relative != "." else []
    if anchored and "/" not in pattern:
        glob = compile_glob(pattern)
        return any(glob.match("/".join(parts[:end])) for end in range(len(parts), 0, -1))
    return any(glob_matches(pattern, "/".join(parts[:end])) for end in range(len(parts), 0, -1))


def _glob_any(pattern: str, absolute: str) -> bool:
    """An absolute glob against an absolute path or one of its parents."""
    parts = absolute.split("/")
    return any(
        glob_matches(pattern, "/".join(parts[:end]) or "/") for end in range(len(parts), 1, -1)
    )


def absolute_path(word: str, workspace: Path) -> Path:
    """A path word as an absolute, normalised path (``~`` expanded, relative to the
    workspace)."""
    path = Path(word)
    with contextlib.suppress(RuntimeError):  # ~name of no such user: left as written, as in bash
        path = path.expanduser()
    return Path(os.path.normpath(path if path.is_absolute() else workspace / path))


def expanded_paths(word: str, workspace: Path) -> list[Path]:
    """The files a path word names: itself, or what the shell would expand it to."""
    if "\0" in word:
        return []
    path = absolute_path(word, workspace)
    if not has_glob(word):
        return [path]
    found: list[Path] = []
    try:
        for index, name in enumerate(glob.iglob(str(path))):
            if index >= MAX_EXPANDED:
                break
            found.append(Path(name))
    except (OSError, ValueError, re.error):
        return [path]
    return found or [path]


def seen_as(path: Path) -> list[Path]:
    """A path as written (normalised) and resolved (symlinks followed)."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError, ValueError):
        return [path]
    return [path] if resolved == path else [path, resolved]


def may_hold(root: Path, pattern: str, workspace: Path) -> bool:
    """Whether a tree at ``root`` may hold a path a path rule's ``pattern`` covers: the
    pattern's fixed part lies under ``root``, or ``root`` lies under it; a pattern without
    ``/`` matches at any depth of the workspace."""
    pattern = pattern.strip()
    if pattern.startswith("//"):
        anchored = Path(pattern[1:])
    elif pattern.startswith("~/"):
        anchored = Path.home() / pattern[2:]
    else:
        relative = pattern.removeprefix("./").lstrip("/")
        if "/" not in relative.rstrip("/"):
            return root.is_relative_to(workspace) or workspace.is_relative_to(root)
        anchored = workspace / relative
    fixed = Path(*_fixed_parts(anchored.parts))
    return fixed.is_relative_to(root) or root.is_relative_to(fixed)


def _fixed_parts(parts: tuple[str, ...]) -> Iterator[str]:
    """The leading parts of a path pattern before the first one with a wildcard."""
    for part in parts:
        if has_glob(part) or "{" in part:
            return
        yield part
