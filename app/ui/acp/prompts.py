"""An ACP prompt (content blocks) as lull's user message: text, attached files, images.

Text blocks are joined; ``@path`` mentions in them attach files as in the terminal. A
resource link to a file attaches the file like a mention; an embedded resource (an editor's
selection or unsaved buffer) is attached as given; an image goes to the model when it takes
images. What could not go is said in ``notes``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from lull.model.messages import Image
from lull.tools.media.mentions import expand_mentions

if TYPE_CHECKING:
    from acp.helpers import ContentBlock

MAX_EMBEDDED_CHARS = 200_000
"""How much of one embedded resource's text joins the prompt."""


@dataclass(frozen=True)
class UserPrompt:
    """A prompt ready for ``Agent.run_turn``: its text, images and what was left out."""

    text: str
    images: tuple[Image, ...] = ()
    notes: tuple[str, ...] = ()


def typed_text(blocks: Sequence[ContentBlock]) -> str:
    """The prompt's own text blocks, joined (to tell a ``/command`` or ``!shell`` line)."""
    from acp.schema import TextContentBlock

    return "\n".join(b.text for b in blocks if isinstance(b, TextContentBlock)).strip()


def user_prompt(
    blocks: Sequence[ContentBlock], workspace: Path, image_refusal: str | None
) -> UserPrompt:
    """The user message ``blocks`` make (``image_refusal``: why the model takes no images)."""
    from acp.schema import (
        AudioContentBlock,
        EmbeddedResourceContentBlock,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
    )

    texts: list[str] = []
    attached: list[str] = []
    images: list[Image] = []
    notes: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            path = file_path(block.uri, workspace)
            mention = None if path is None else _mention(path, workspace)
            texts.append(f"@{mention}" if mention else f"[{block.name}]({block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            embedded, note = _embedded(block)
            attached.extend([embedded] if embedded else [])
            notes.extend([note] if note else [])
        elif isinstance(block, ImageContentBlock):
            if image_refusal is None:
                images.append(Image(block.mime_type, block.data))
            else:
                notes.append(f"an image was not sent: {image_refusal}")
        elif isinstance(block, AudioContentBlock):
            notes.append("audio is not supported; it was not sent")
    expanded = expand_mentions(" ".join(t for t in texts if t), workspace, image_refusal)
    notes.extend(m.note for m in expanded.mentions if not m.attached)
    text = "\n\n".join([expanded.prompt, *attached]).strip()
    return UserPrompt(text, (*images, *expanded.images), tuple(notes))


def file_path(uri: str, workspace: Path) -> Path | None:
    """The file a ``file://`` URI (or a plain path) names; None for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme == "" and uri.strip():
        path = Path(uri).expanduser()
        return path if path.is_absolute() else workspace / path
    return None


def _mention(path: Path, workspace: Path) -> str | None:
    """``path`` as an ``@`` mention: relative inside the workspace, else absolute; None for
    a name with white space (a mention ends at the first), which stays a link."""
    try:
        shown = str(path.resolve().relative_to(workspace.resolve()))
    except (OSError, ValueError):
        shown = str(path)
    return None if any(c.isspace() for c in shown) else shown


def _embedded(block: object) -> tuple[str | None, str | None]:
    """An embedded resource's text as an attachment, or a note on why it was left out."""
    from acp.schema import EmbeddedResourceContentBlock, TextResourceContents

    assert isinstance(block, EmbeddedResourceContentBlock)
    resource = block.resource
    if not isinstance(resource, TextResourceContents):
        return None, f"{resource.uri}: binary content is not sent"
    text = resource.text
    if len(text) > MAX_EMBEDDED_CHARS:
        text = text[:MAX_EMBEDDED_CHARS] + f"\n[truncated: first {MAX_EMBEDDED_CHARS:,} chars]"
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return f"Contents of {resource.uri}:\n{fence}\n{text.rstrip()}\n{fence}", None


def _longest_backticks(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
