"""Image vocabulary shared by every layer: the formats the APIs take, size limits, and how an
image's size reads.

Images enter the conversation from ``@shot.png`` mentions, pasted paths, the clipboard and
``read_file``; they are prepared once (``tools/media/images.py``) to :data:`UPLOAD_LIMITS`, which
every supported provider accepts, and each wire checks its own provider's hard limits again
(``app/catalog/vision.py``) so that nothing a provider would reject with a 400 is ever sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from lull.model.messages import Image

IMAGE_MEDIA_TYPES: Final = ("image/png", "image/jpeg", "image/gif", "image/webp")
IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".gif", ".webp")


@dataclass(frozen=True, slots=True)
class ImageLimits:
    """How large one image may be: bytes (decoded) and the longer edge in pixels."""

    max_bytes: int
    max_edge: int


UPLOAD_LIMITS: Final = ImageLimits(max_bytes=3_750_000, max_edge=1568)
"""What lull prepares every image to: under Anthropic's 5 MB (base64) per image and at the
edge Claude works at best (larger images are scaled down by the API anyway); OpenAI takes
the same. Larger images are scaled down, or refused when they cannot be."""
MAX_SOURCE_BYTES: Final = 50_000_000
"""Image files larger than this are refused before being read (nothing useful scales from
there in a terminal session)."""


def image_bytes(image: Image) -> int:
    """The decoded size of an inline image, from its base64 length."""
    data = image.data.rstrip("=")
    return len(data) * 3 // 4


def human_size(size: int) -> str:
    """``1.2 MB``, ``340 KB``, ``12 bytes``."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1000:
        return f"{size / 1000:.0f} KB"
    return f"{size} bytes"


def cleared_media_text(image: Image) -> str:
    """What an image the media window cleared reads as: ``[Old image cleared: image/png,
    1.2 MB]``."""
    return f"[Old image cleared: {image.media_type}, {human_size(image_bytes(image))}]"
