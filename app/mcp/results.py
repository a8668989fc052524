"""An MCP ``tools/call`` result as lull's :class:`~lull.tools.base.ToolOutput`.

Text blocks become the result's text; images become :class:`~lull.model.messages.Image`
parts (the tool runner sends them to models that accept images, and says they were left
out otherwise); resource links and embedded resources are named with their URI; structured
content without text is shown as JSON. The text is capped like a built-in tool's output
(``tools.maxOutputChars``: head and tail kept, the full text saved to a file). Blocks are
read by their ``type`` field, so this module needs no import of the SDK.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from typing import Any

from lull.model.messages import Image
from lull.tools.base import ToolContext, ToolOutput
from lull.tools.output import cap_output

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def convert_result(result: Any, label: str, ctx: ToolContext) -> ToolOutput:
    """A ``CallToolResult`` (content blocks, structured content, ``is_error``) as output."""
    texts: list[str] = []
    images: list[Image] = []
    for block in _blocks(getattr(result, "content", None)):
        text, image = convert_block(block, len(images) + 1)
        if image is not None:
            images.append(image)
        if text:
            texts.append(text)
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(_is_text(b) for b in _blocks(result.content)):
        texts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    body = "\n\n".join(texts) or ("(no output)" if not images else "")
    is_error = bool(getattr(result, "is_error", False))
    return ToolOutput(cap_output(body, ctx, label), is_error, images=tuple(images))


def convert_block(block: Any, number: int) -> tuple[str, Image | None]:
    """One content block: its text for the model, and an image if it is one (``number``
    counts the images of the result)."""
    kind = getattr(block, "type", "")
    match kind:
        case "text":
            return str(block.text), None
        case "image":
            return _image(str(block.data), str(block.mime_type), number, "")
        case "audio":
            return f"[audio ({block.mime_type}) not shown: lull does not play audio]", None
        case "resource_link":
            return _link(block), None
        case "resource":
            return _embedded(block.resource, number)
        case _:
            return f"[a {kind or 'unknown'} block lull does not show]", None


def _image(data: str, mime_type: str, number: int, uri: str) -> tuple[str, Image | None]:
    where = f" from {uri}" if uri else ""
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return f"[image {number}{where}: not valid base64, left out]", None
    if mime_type not in IMAGE_TYPES:
        return f"[image {number}{where} ({mime_type}, {size:,} bytes) left out: unsupported]", None
    return f"[image {number}{where}: {mime_type}, {size:,} bytes]", Image(mime_type, data)


def _link(block: Any) -> str:
    parts = [f"[resource link: {block.name} <{block.uri}>"]
    if getattr(block, "mime_type", None):
        parts.append(f" ({block.mime_type})")
    if getattr(block, "description", None):
        parts.append(f": {block.description}")
    return "".join(parts) + "]"


def _embedded(resource: Any, number: int) -> tuple[str, Image | None]:
    uri = str(getattr(resource, "uri", ""))
    mime = getattr(resource, "mime_type", None) or ""
    text = getattr(resource, "text", None)
    if text is not None:
        return f"[resource {uri}]\n{text}", None
    blob = str(getattr(resource, "blob", ""))
    if mime in IMAGE_TYPES:
        return _image(blob, mime, number, uri)
    return f"[binary resource {uri} ({mime or 'unknown type'}) not shown]", None


def _blocks(content: object) -> Iterable[Any]:
    return content if isinstance(content, list) else ()


def _is_text(block: Any) -> bool:
    return getattr(block, "type", "") == "text"
