"""The instruction files that go into the system prompt, and their ``@path`` imports.

Read once when a session starts, in this order (later ones are nearer the work):

1. the user's ``~/.claude/CLAUDE.md`` (Claude Code's, for every project);
2. ``CLAUDE.md`` and ``.claude/CLAUDE.md`` in each folder above the workspace, the farthest
   first, up to the home folder (or up to, not including, the filesystem root);
3. the workspace's ``AGENTS.md``, ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``QWEN.md``.

A line's ``@path`` (relative to the file it is in; ``~/`` is the home folder) is replaced by
that file's text, as Claude Code documents: imports may nest :data:`MAX_IMPORT_DEPTH` deep, a
file already being imported is not imported again, and ``@`` inside a code span or block is
text. Only files inside the workspace or the home folder are imported, and a file in the
workspace imports from outside it only once the workspace is trusted (as Claude Code asks
before a project's first external import); any other stays as
written, with a note saying why. An ``@word`` that names no file (a handle, an address) stays
as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

WORKSPACE_FILES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "QWEN.md")
PARENT_FILES = ("CLAUDE.md", ".claude/CLAUDE.md")
USER_FILE = ".claude/CLAUDE.md"
MAX_INSTRUCTIONS_CHARS = 40_000
MAX_IMPORT_DEPTH = 5
"""How many imports deep ``@path`` is followed (Claude Code's limit)."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_IMPORT = re.compile(r"(?<!\S)@((?:~/|\.{1,2}/|/)?[\w.\-/~]+)")
_TRAILING = ".,;:!?)"


@dataclass(frozen=True)
class _Reader:
    """Where imports may come from: the workspace and the home folder."""

    workspace: Path
    home: Path
    trusted: bool = False
    """Whether the workspace is trusted: only then may its files import from outside it."""

    def read(self, path: Path) -> str | None:
        """The text of ``path``, or None when it cannot be read."""
        try:
            return path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None

    def allowed(self, path: Path) -> bool:
        """Whether ``path`` (resolved) is inside the workspace or the home folder."""
        return path.is_relative_to(self.workspace) or path.is_relative_to(self.home)

    def expanded(self, text: str, origin: Path, chain: tuple[Path, ...]) -> str:
        """``text`` (of the file ``origin``) with its ``@path`` imports replaced, outside
        code; ``chain`` holds the files being imported (cycles stop there)."""
        lines, fenced = [], False
        for line in text.splitlines():
            if _FENCE.match(line):
                fenced = not fenced
            lines.append(line if fenced else self._line(line, origin, chain))
        return "\n".join(lines)

    def _line(self, line: str, origin: Path, chain: tuple[Path, ...]) -> str:
        """One line's imports replaced, leaving code spans as they are."""
        parts, last = [], 0
        for span in _CODE_SPAN.finditer(line):
            parts.append(self._text(line[last : span.start()], origin, chain))
            parts.append(span.group(0))
            last = span.end()
        parts.append(self._text(line[last:], origin, chain))
        return "".join(parts)

    def _text(self, text: str, origin: Path, chain: tuple[Path, ...]) -> str:
        return _IMPORT.sub(lambda match: self._import(match.group(1), origin, chain), text)

    def _import(self, written: str, origin: Path, chain: tuple[Path, ...]) -> str:
        """The text an ``@written`` in ``origin`` stands for."""
        target = written.rstrip(_TRAILING)
        tail = written[len(target) :]
        mention = f"@{target}"
        try:
            path = self.home / target[2:] if target.startswith("~/") else Path(target)
            path = (path if path.is_absolute() else origin.parent / path).resolve()
        except (OSError, RuntimeError, ValueError):
            return mention + tail
        if not path.is_file():
            return mention + tail
        if not self.allowed(path):
            note = "not imported: outside the workspace and your home folder"
            return f"{mention} ({note}){tail}"
        if (
            not self.trusted
            and _inside(origin, self.workspace)
            and not _inside(path, self.workspace)
        ):
            note = "not imported until you /trust this workspace: it is outside it"
            return f"{mention} ({note}){tail}"
        if path in chain:
            return f"{mention} (not imported: it is already being imported){tail}"
        if len(chain) > MAX_IMPORT_DEPTH:
            return f"{mention} (not imported: more than {MAX_IMPORT_DEPTH} imports deep){tail}"
        body = self.read(path)
        if body is None:
            return mention + tail
        return self.expanded(body, path, (*chain, path)) + tail


def instruction_files(workspace: Path, home: Path) -> list[tuple[str, Path]]:
    """The instruction files that exist, in prompt order, each with the name it is shown by."""
    found: list[tuple[str, Path]] = []
    user = home / USER_FILE
    if user.is_file():
        found.append((f"~/{USER_FILE} (yours, for every project)", user))
    workspace = workspace.resolve()
    for folder in reversed(_parents(workspace, home.resolve())):
        for name in PARENT_FILES:
            if (folder / name).is_file():
                found.append((str(folder / name), folder / name))
    for name in WORKSPACE_FILES:
        if (workspace / name).is_file():
            found.append((name, workspace / name))
    return found


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or in it."""
    return path.is_relative_to(folder)


def _parents(workspace: Path, home: Path) -> list[Path]:
    """The folders above the workspace, nearest first: up to the home folder when the
    workspace is in it, else up to (not including) the filesystem root."""
    if workspace == home:
        return []
    folders: list[Path] = []
    for folder in workspace.parents:
        if folder == Path(folder.anchor):
            break
        folders.append(folder)
        if folder == home:
            break
    return folders


def project_instructions(
    workspace: Path, home: Path | None = None, *, trusted: bool = False
) -> str:
    """The instruction files (see the module docstring) with their imports, as a prompt
    section ('' if none); unless ``trusted``, a file in the workspace imports nothing from
    outside it (a repository's CLAUDE.md cannot pull ``@~/.ssh/id_rsa`` into the prompt)."""
    home = (Path.home() if home is None else home).resolve()
    reader = _Reader(workspace.resolve(), home, trusted)
    sections: list[str] = []
    budget = MAX_INSTRUCTIONS_CHARS
    for name, path in instruction_files(workspace, home):
        text = reader.read(path)
        if not text or budget <= 0:
            continue
        resolved = path.resolve()
        text = reader.expanded(text, resolved, (resolved,)).strip()
        if len(text) > budget:
            text = text[:budget] + f"\n[... {name} truncated ...]"
        budget -= len(text)
        sections.append(f"## {name}\n\n{text}")
    if not sections:
        return ""
    header = "# Project instructions (from the workspace; follow them)"
    return header + "\n\n" + "\n\n".join(sections)
