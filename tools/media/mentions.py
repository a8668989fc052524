"""``@path`` mentions: the content of each mentioned file goes with the message.

``expand_mentions("fix @src/a.py", workspace)`` returns the prompt with the file appended in
a fenced block (the fence names the file's language and is longer than any backtick run
inside), and what happened to each mention (attached, missing, binary, a directory,
truncated). Paths are relative to the workspace; absolute and ``~`` paths work too (the user
chose to send them). A mention keeps trailing punctuation only when a file has that name
(``@a.md,`` attaches ``a.md``).

Images go as images: ``@shot.png`` and a pasted (or dragged-in) absolute path to an image
file (``/tmp/Screenshot 1.png``, quoted or with backslash-escaped spaces, as terminals
paste them) attach the picture itself, scaled down when it is larger than the providers take
(``tools/media/images.py``). When the model takes no images, ``image_refusal`` says why and the
image is not attached (the note says so).

Text from a file the user has not trusted (an untrusted project's custom command) is
``confined``: its mentions attach only files inside the workspace (symlinks followed), except
those the user ``typed`` themselves (the command's arguments); the others are refused with a
note naming where they lead.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from lull.model.media import human_size, image_bytes
from lull.model.messages import Image
from lull.tools.media.images import (
    ImageRefused,
    looks_like_image,
    read_image_file,
    sniff_media_type,
)
from lull.tools.media.regular import NotRegularFile, read_head

MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
MAX_ATTACH_BYTES = 100_000
BINARY_SNIFF_BYTES = 8192
TRAILING = ",.;:!?)]}'\""
_IMAGE_END = r"\.(?:png|jpe?g|gif|webp)"
PASTED_IMAGE = re.compile(
    rf"(?:^|(?<=\s))(?:'(?P<single>[~/][^']*{_IMAGE_END})'"
    rf"|\"(?P<double>[~/][^\"]*{_IMAGE_END})\""
    rf"|(?P<bare>[~/](?:[^\s\\'\"]|\\.)*{_IMAGE_END}))(?=\s|$)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Mention:
    """What happened to one mention: ``note`` is one line for the user."""

    name: str
    note: str
    attached: bool


@dataclass(frozen=True)
class Expanded:
    """The prompt to send and what happened to each mention, in order."""

    prompt: str
    mentions: tuple[Mention, ...] = ()
    images: tuple[Image, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """One line per mention."""
        return tuple(m.note for m in self.mentions)

    @property
    def attached(self) -> tuple[str, ...]:
        """The mentions whose file went with the message."""
        return tuple(m.name for m in self.mentions if m.attached)

    @property
    def problems(self) -> tuple[str, ...]:
        """The lines about mentions that were not attached."""
        return tuple(m.note for m in self.mentions if not m.attached)


def mentioned_paths(text: str) -> list[str]:
    """The ``@`` mentions in ``text`` as written, in order, without repeats."""
    seen: dict[str, None] = {}
    for match in MENTION.finditer(text):
        seen.setdefault(match.group(1), None)
    return list(seen)


def pasted_image_paths(text: str) -> list[str]:
    """Absolute or ``~`` paths of image files pasted into ``text`` without an ``@`` (as a
    terminal pastes a dragged file: maybe quoted, spaces maybe escaped with ``\\``)."""
    found: dict[str, None] = {}
    for match in PASTED_IMAGE.finditer(text):
        single, double, bare = match.group("single", "double", "bare")
        raw = single or double or re.sub(r"\\(.)", r"\1", bare or "")
        if Path(raw).expanduser().is_file():
            found.setdefault(raw, None)
    return list(found)


def expand_mentions(
    text: str,
    workspace: Path,
    image_refusal: str | None = None,
    *,
    confined: bool = False,
    typed: Collection[str] = (),
) -> Expanded:
    """Append the content of every mentioned file to ``text``; image files (mentioned or
    pasted as a path) come back as images (``image_refusal``: why the model takes none).
    With ``confined`` (text from an untrusted project file), a mention leading outside the
    workspace is refused unless the user ``typed`` it (as written there)."""
    blocks: list[str] = []
    mentions: list[Mention] = []
    images: list[Image] = []
    seen: set[Path] = set()
    for raw in [*mentioned_paths(text), *pasted_image_paths(text)]:
        name, path = _resolve(raw, workspace)
        if path is None:
            mentions.append(Mention(raw, f"@{raw}: no such file; sent as plain text", False))
            continue
        if confined and raw not in typed:
            outside = _outside(name, path, workspace)
            if outside is not None:
                mentions.append(Mention(name, outside, False))
                continue
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        if path.is_dir():
            note = f"@{name}: is a directory; only files are attached"
            mentions.append(Mention(name, note, False))
            continue
        if _is_image(path):
            image, note = _attach_image(name, path, image_refusal)
            mentions.append(Mention(name, note, image is not None))
            images.extend([image] if image is not None else [])
            continue
        block, note = _attach(name, path)
        mentions.append(Mention(name, note, block is not None))
        if block is not None:
            blocks.append(block)
    prompt = text + "\n\n" + "\n\n".join(blocks) if blocks else text
    return Expanded(prompt, tuple(mentions), tuple(images))


def _is_image(path: Path) -> bool:
    """Named like an image, or a regular file starting like one."""
    if looks_like_image(path):
        return True
    try:
        head, _size = read_head(path, 16)
    except (OSError, NotRegularFile):
        return False
    return sniff_media_type(head) is not None


def _outside(name: str, path: Path, workspace: Path) -> str | None:
    """The note for a confined mention that leads outside the workspace (None: inside)."""
    root = workspace.resolve()
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        target = None
    if target is not None and target.is_relative_to(root):
        return None
    where = f"it leads to {target}" if target is not None else "it cannot be resolved"
    return (
        f"@{name}: not attached: {where}, outside the workspace {root}; a project file may "
        "attach only files inside it until you /trust this workspace"
    )


def _not_regular(name: str, path: Path, error: NotRegularFile) -> str:
    """The note for a mention that is no regular file (saying where a link leads)."""
    try:
        target = path.resolve()
        linked = target != path.parent.resolve() / path.name
    except (OSError, RuntimeError):
        linked = False
    where = f"it leads to {target}, {error.kind}" if linked else f"it is {error.kind}"
    return f"@{name}: not attached: {where}; only regular files are attached"


def _attach_image(name: str, path: Path, refusal: str | None) -> tuple[Image | None, str]:
    """The image in ``path`` (None when it cannot go) and the note about it."""
    if refusal is not None:
        return None, f"{name}: image not attached: {refusal}"
    try:
        image = read_image_file(path)
    except NotRegularFile as error:
        return None, _not_regular(name, path, error)
    except ImageRefused as problem:
        return None, f"{name}: image not attached: {problem}"
    except OSError as error:
        return None, f"{name}: cannot read it ({error.strerror or error}); not attached"
    size = human_size(image_bytes(image))
    return image, f"attached image {name} ({image.media_type}, {size})"


def _resolve(raw: str, workspace: Path) -> tuple[str, Path | None]:
    """The mention as meant (trailing punctuation dropped if needed) and its path."""
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
    """The fenced block for one file (None if it cannot go) and the note about it."""
    try:
        data, size = read_head(path, MAX_ATTACH_BYTES + 1)
    except NotRegularFile as error:
        return None, _not_regular(name, path, error)
    except OSError as error:
        return None, f"@{name}: cannot read it ({error.strerror or error}); not attached"
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return None, f"@{name}: binary file; not attached"
    text = data[:MAX_ATTACH_BYTES].decode("utf-8", errors="replace")
    note = f"attached {name} ({_size(size)})"
    if size > MAX_ATTACH_BYTES:
        text += (
            f"\n[truncated: first {MAX_ATTACH_BYTES:,} of {size:,} bytes; read_file has the rest]"
        )
        note = f"attached the first {_size(MAX_ATTACH_BYTES)} of {name} ({_size(size)})"
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    language = path.suffix.lstrip(".")
    return f"Contents of {name}:\n{fence}{language}\n{text.rstrip()}\n{fence}", note


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def _size(size: int) -> str:
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.1f} KB"
