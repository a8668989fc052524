"""``@path`` mentions: the content of each mentioned file goes with the message.

``expand_mentions("fix @src/a.py", workspace)`` returns the prompt with the
file appended in a fenced block, and one note per mention for the user
(attached, missing, binary, truncated). Paths are relative to the workspace;
absolute and ``~`` paths work too (the user chose to send them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
MAX_BYTES = 100_000
TRAILING = ",.;:!?)]}'\""


@dataclass(frozen=True)
class Expanded:
    """The prompt to send and what happened to each mention."""

    prompt: str
    notes: tuple[str, ...]
    attached: tuple[str, ...]


def mentioned_paths(text: str) -> list[str]:
    """The ``@`` mentions in ``text`` in order, without repeats."""
    seen: list[str] = []
    for match in MENTION.finditer(text):
        if match.group(1) not in seen:
            seen.append(match.group(1))
    return seen


def expand_mentions(text: str, workspace: Path) -> Expanded:
    """Append the content of every mentioned file to ``text``."""
    blocks: list[str] = []
    notes: list[str] = []
    attached: list[str] = []
    seen: set[Path] = set()
    for raw in mentioned_paths(text):
        name, path = _resolve(raw, workspace)
        if path is None:
            notes.append(f"@{raw}: no such file; sent as plain text")
            continue
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        if path.is_dir():
            notes.append(f"@{name}: is a directory; only files are attached")
            continue
        block, note = _attach(name, path)
        notes.append(note)
        if block:
            blocks.append(block)
            attached.append(name)
    if not blocks:
        return Expanded(text, tuple(notes), ())
    return Expanded(text + "\n\n" + "\n\n".join(blocks), tuple(notes), tuple(attached))


def _resolve(raw: str, workspace: Path) -> tuple[str, Path | None]:
    """The mention as typed (trailing punctuation dropped if needed) and its path."""
    candidates = [raw]
    stripped = raw.rstrip(TRAILING)
    if stripped and stripped != raw:
        candidates.append(stripped)
    for name in candidates:
        path = Path(name).expanduser()
        if not path.is_absolute():
            path = workspace / path
        if path.exists():
            return name, path
    return raw, None


def _attach(name: str, path: Path) -> tuple[str | None, str]:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        size = path.stat().st_size
    except OSError as error:
        return None, f"@{name}: cannot read it ({error.strerror or error}); not attached"
    if b"\0" in data[:8192]:
        return None, f"@{name}: binary file; not attached"
    text = data[:MAX_BYTES].decode("utf-8", errors="replace")
    note = f"attached {name} ({_size(size)})"
    if size > MAX_BYTES:
        text += f"\n[truncated: first {MAX_BYTES:,} of {size:,} bytes; read_file has the rest]"
        note = f"attached the first {_size(MAX_BYTES)} of {name} ({_size(size)})"
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    language = path.suffix.lstrip(".")
    return f"Contents of {name}:\n{fence}{language}\n{text.rstrip()}\n{fence}", note


def _longest_backtick_run(text: str) -> int:
    runs = re.findall(r"`+", text)
    return max((len(r) for r in runs), default=0)


def _size(size: int) -> str:
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"
