"""Path safety: every file a tool touches must lie inside the workspace.

Relative paths are taken relative to the workspace; the fully resolved path
(symlinks followed) must be inside the workspace or one of the allowed paths.
"""

from __future__ import annotations

import os
from pathlib import Path

from lull.model.text import REPLACEMENT, has_surrogates, wire_text
from lull.tools.base import ToolContext, ToolError


def _resolve_root(root: Path, workspace: Path) -> Path:
    """An allowed root as an absolute, resolved path."""
    root = root.expanduser()
    if not root.is_absolute():
        root = workspace / root
    return root.resolve()


def resolve_in_workspace(path_str: str, ctx: ToolContext, *, reading: bool = False) -> Path:
    """Resolve ``path_str`` for a tool and refuse anything outside the allowed roots.

    With ``reading``, the directory of saved full tool outputs (``ctx.output_dir``)
    is allowed too, so the model can page through an output it saw truncated.
    """
    if not path_str.strip():
        raise ToolError("path is empty; give a file or directory path")
    if "\0" in path_str:
        raise ToolError(f"path {path_str!r} contains a NUL character")
    if has_surrogates(path_str):
        raise ToolError(_surrogate_problem(path_str))
    workspace = ctx.workspace.resolve()
    given = Path(path_str).expanduser()
    naive = given if given.is_absolute() else workspace / given
    if REPLACEMENT in path_str and not os.path.lexists(naive):
        naive = _recover_replaced(naive)
    try:
        resolved = naive.resolve()
    except (OSError, RuntimeError) as exc:
        raise ToolError(f"path {path_str} cannot be resolved: {exc}") from exc
    roots = [workspace, *(_resolve_root(p, workspace) for p in ctx.allowed_paths)]
    if reading:
        roots.append(ctx.output_dir.expanduser().resolve())
    if any(resolved.is_relative_to(root) for root in roots):
        return resolved
    shown = path_str if resolved == naive else f"{path_str} (resolves to {resolved})"
    raise ToolError(
        f"path {shown} is outside the workspace {workspace}; "
        "add it to tools.allowedPaths in settings.json to allow it"
    )


def _surrogate_problem(path_str: str) -> str:
    """Why a path holding a lone surrogate (U+D800-U+DFFF) is refused: lull never sends one
    (a name's undecodable byte goes to the model as U+FFFD), so it names no file."""
    index, char = next((i, c) for i, c in enumerate(path_str) if has_surrogates(c))
    return (
        f"path {path_str!r} holds a lone surrogate (U+{ord(char):04X} at character "
        f"{index + 1}), which is not a character a file name is given in; use the name as "
        "listed (a byte lull could not decode is shown as U+FFFD)"
    )


def root_of(path: Path, ctx: ToolContext) -> Path:
    """The checked root (the workspace or an allowed path) a resolved ``path`` lies under:
    the innermost one, where writes are anchored (see :mod:`lull.tools.files.anchored`)."""
    workspace = ctx.workspace.resolve()
    roots = [workspace, *(_resolve_root(p, workspace) for p in ctx.allowed_paths)]
    inside = [root for root in roots if path.is_relative_to(root)]
    if not inside:
        raise ToolError(f"path {path} is outside the workspace {workspace}")
    return max(inside, key=lambda root: len(root.parts))


def display_path(path: Path, ctx: ToolContext) -> str:
    """How a resolved path is shown to the model: workspace-relative when inside it."""
    workspace = ctx.workspace.resolve()
    if path == workspace:
        return "."
    if path.is_relative_to(workspace):
        return path.relative_to(workspace).as_posix()
    return str(path)


def _recover_replaced(path: Path) -> Path:
    """The existing path the model meant when it wrote U+FFFD for a name's undecodable byte
    (it is sent names that way, ``app/model/text.py``): each missing name is matched against
    its directory's entries as the model saw them. ``path`` itself unless exactly one matches.
    """
    current = Path(path.anchor)
    for name in path.relative_to(path.anchor).parts:
        candidate = current / name
        if REPLACEMENT in name and not os.path.lexists(candidate):
            try:
                matches = [entry for entry in os.listdir(current) if wire_text(entry) == name]
            except OSError:
                return path
            if len(matches) != 1:
                return path
            candidate = current / matches[0]
        current = candidate
    return current
