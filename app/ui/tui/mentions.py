"""``@path`` mentions and completion candidates for the prompt.

A message like ``explain @src/main.py`` is sent with the file's content
appended as a fenced block, so the model sees it without a tool call.
Completion lists workspace entries for a partial ``@path`` and slash commands
for a partial ``/command``. Pure functions over the file system; no Textual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

MAX_ATTACH_BYTES = 200_000
MAX_CANDIDATES = 50
SKIPPED_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", ".mypy_cache"})
MENTION = re.compile(r"(?:(?<=\s)|^)@(\S+)")
TRAILING_PUNCTUATION = ".,;:!?)]}'\""


@dataclass
class Expansion:
    """A prompt with its mentioned files attached, and one line per file that was not."""

    prompt: str
    attached: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def mentioned_paths(text: str) -> list[str]:
    """The ``@path`` tokens of ``text`` in order, without duplicates or trailing punctuation."""
    seen: dict[str, None] = {}
    for match in MENTION.finditer(text):
        token = match.group(1).rstrip(TRAILING_PUNCTUATION)
        if token:
            seen.setdefault(token, None)
    return list(seen)


def _resolve(token: str, workspace: Path) -> tuple[str, Path] | None:
    """The mention as written and its file, if it exists."""
    path = Path(token).expanduser()
    path = path if path.is_absolute() else workspace / path
    return (token, path) if path.exists() else None


def _fence(content: str) -> str:
    """A backtick fence longer than any run of backticks inside ``content``."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    return "`" * max(3, longest + 1)


def read_attachment(path: Path, shown: str) -> tuple[str | None, str | None]:
    """(content, None) for a readable text file, else (None, why not)."""
    if path.is_dir():
        return None, f"@{shown} is a directory; mention files, not directories"
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_ATTACH_BYTES + 1)
    except OSError as error:
        return None, f"@{shown} could not be read: {error.strerror or error}"
    if b"\0" in data[:8192]:
        return None, f"@{shown} looks binary; it was not attached"
    text = data[:MAX_ATTACH_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_ATTACH_BYTES:
        text += f"\n[... truncated at {MAX_ATTACH_BYTES:,} bytes]"
    return text, None


def expand_mentions(text: str, workspace: Path) -> Expansion:
    """``text`` with each mentioned file's content appended as a fenced block."""
    expansion = Expansion(text)
    blocks: list[str] = []
    for token in mentioned_paths(text):
        found = _resolve(token, workspace)
        if found is None:
            expansion.problems.append(f"@{token}: no such file in {workspace}; sent as plain text")
            continue
        shown, path = found
        content, problem = read_attachment(path, shown)
        if content is None:
            expansion.problems.append(problem or f"@{shown} was not attached")
            continue
        fence = _fence(content)
        body = content if content.endswith("\n") else content + "\n"
        blocks.append(f"Contents of {shown}:\n{fence}\n{body}{fence}")
        expansion.attached.append(shown)
    if blocks:
        expansion.prompt = text + "\n\n" + "\n\n".join(blocks)
    return expansion


def path_candidates(workspace: Path, partial: str, limit: int = MAX_CANDIDATES) -> list[str]:
    """Workspace entries completing ``partial`` (directories end in ``/``), sorted."""
    head, _, prefix = partial.rpartition("/")
    base = Path(head).expanduser() if head else Path()
    directory = base if base.is_absolute() else workspace / base
    try:
        entries: Iterable[Path] = list(directory.iterdir())
    except OSError:
        return []
    found: list[str] = []
    lowered = prefix.lower()
    for entry in entries:
        name = entry.name
        if name in SKIPPED_DIRS or (name.startswith(".") and not prefix.startswith(".")):
            continue
        if not name.lower().startswith(lowered):
            continue
        shown = f"{head}/{name}" if head else name
        found.append(shown + "/" if entry.is_dir() else shown)
    return sorted(found, key=lambda s: (not s.endswith("/"), s.lower()))[:limit]


def command_candidates(partial: str, commands: dict[str, str]) -> list[tuple[str, str]]:
    """(``/name``, summary) for the commands starting with ``partial`` (without the slash)."""
    key = partial.lower()
    return [
        (f"/{name}", summary) for name, summary in sorted(commands.items()) if name.startswith(key)
    ]


@dataclass(frozen=True)
class Completion:
    """One choice: the text that replaces the token, and a description to show beside it."""

    value: str
    description: str = ""


@dataclass(frozen=True)
class CompletionRequest:
    """What to complete on the cursor's line: the token's start column and the choices."""

    start: int
    token: str
    items: list[Completion]


def complete(
    before_cursor: str, first_line: bool, workspace: Path, commands: dict[str, str]
) -> CompletionRequest | None:
    """Choices for the token ending at the cursor: ``/command`` at the start, or ``@path``."""
    if first_line and before_cursor.startswith("/") and not any(c.isspace() for c in before_cursor):
        found = command_candidates(before_cursor[1:], commands)
        items = [Completion(v, d) for v, d in found if v != before_cursor]
        return CompletionRequest(0, before_cursor, items) if items else None
    start = max(before_cursor.rfind(" "), before_cursor.rfind("\t")) + 1
    token = before_cursor[start:]
    if not token.startswith("@"):
        return None
    paths = path_candidates(workspace, token[1:])
    items = [Completion("@" + p) for p in paths if "@" + p != token]
    return CompletionRequest(start, token, items) if items else None
