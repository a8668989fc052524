"""Image files as inline images a model can see: format sniffed from the bytes, size
checked, scaled down to :data:`~lull.model.media.UPLOAD_LIMITS` when larger (Pillow, imported
only then), or refused with one line that says why.
"""

from __future__ import annotations

import base64
import io
import struct
from pathlib import Path
from typing import Any

from lull.model.media import (
    IMAGE_SUFFIXES,
    MAX_SOURCE_BYTES,
    UPLOAD_LIMITS,
    ImageLimits,
    human_size,
)
from lull.model.messages import Image
from lull.tools.media.regular import open_regular

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
JPEG_QUALITIES = (85, 70, 55)
MIN_EDGE = 256
"""Images are not scaled below this many pixels on the longer edge to fit a byte limit."""


class ImageRefused(ValueError):
    """An image that cannot be sent, with the reason as one phrase."""


def looks_like_image(path: Path) -> bool:
    """Whether ``path`` is named like an image file lull can send."""
    return path.suffix.lower() in IMAGE_SUFFIXES


def sniff_media_type(data: bytes) -> str | None:
    """The image format the bytes are in (PNG, JPEG, GIF, WebP), or None."""
    for signature, media_type in _SIGNATURES:
        if data.startswith(signature):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_dimensions(data: bytes, media_type: str) -> tuple[int, int] | None:
    """(width, height) read from the header, or None when the header is not understood."""
    try:
        if media_type == "image/png" and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return int(width), int(height)
        if media_type == "image/gif":
            width, height = struct.unpack("<HH", data[6:10])
            return int(width), int(height)
        if media_type == "image/jpeg":
            return _jpeg_dimensions(data)
        if media_type == "image/webp":
            return _webp_dimensions(data)
    except struct.error:
        return None
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    index = 2
    while index + 9 < len(data):
        if data[index] != 0xFF:
            index += 1
            continue
        marker = data[index + 1]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE):
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return int(width), int(height)
        length = struct.unpack(">H", data[index + 2 : index + 4])[0]
        index += 2 + int(length)
    return None


def _webp_dimensions(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    return None


def read_image_file(path: Path, limits: ImageLimits = UPLOAD_LIMITS) -> Image:
    """The image in ``path``, ready to send; raises :class:`ImageRefused`,
    :class:`~lull.tools.media.regular.NotRegularFile` (a FIFO, a device: never read) or
    OSError. The size is checked before reading, and at most the cap is read (a file that
    grows meanwhile is refused too)."""
    with open_regular(path) as (handle, size):
        if size > MAX_SOURCE_BYTES:
            raise _too_large(size)
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_large(len(data), more=True)
    return prepare_image(data, limits)


def _too_large(size: int, *, more: bool = False) -> ImageRefused:
    over = "more than " if more else ""
    return ImageRefused(
        f"{over}{human_size(size)} is too large to send (lull reads images up to "
        f"{human_size(MAX_SOURCE_BYTES)})"
    )


def prepare_image(data: bytes, limits: ImageLimits = UPLOAD_LIMITS) -> Image:
    """``data`` as an inline image within ``limits`` (scaled down when larger); raises
    :class:`ImageRefused` saying why it cannot be sent."""
    media_type = sniff_media_type(data)
    if media_type is None:
        raise ImageRefused("not a PNG, JPEG, GIF or WebP image")
    dimensions = image_dimensions(data, media_type)
    fits_edge = dimensions is not None and max(dimensions) <= limits.max_edge
    if len(data) <= limits.max_bytes and fits_edge:
        return Image(media_type, base64.b64encode(data).decode("ascii"))
    return _scaled(data, media_type, limits)


def _scaled(data: bytes, media_type: str, limits: ImageLimits) -> Image:
    """The image scaled to fit ``limits`` (its format kept when that fits, else JPEG)."""
    try:
        from PIL import Image as Picture
    except ImportError:  # pragma: no cover - Pillow is a dependency
        raise ImageRefused(
            f"{human_size(len(data))} is over the {human_size(limits.max_bytes)} or "
            f"{limits.max_edge}-pixel limit and Pillow is not installed to scale it down"
        ) from None
    try:
        with Picture.open(io.BytesIO(data)) as picture:
            picture.load()
            frame = picture.copy()
    except Exception as error:  # Pillow raises many kinds for a damaged file
        raise ImageRefused(f"the image cannot be decoded ({error})") from None
    edge = min(limits.max_edge, max(frame.size))
    while True:
        frame.thumbnail((edge, edge))
        image = _fitting(frame, media_type, limits.max_bytes)
        if image is not None:
            return image
        if edge <= MIN_EDGE:
            break
        edge = max(MIN_EDGE, int(edge * 0.75))
    raise ImageRefused(
        f"still over {human_size(limits.max_bytes)} after scaling it down to {MIN_EDGE} pixels"
    )


def _fitting(frame: Any, media_type: str, max_bytes: int) -> Image | None:
    """``frame`` encoded within ``max_bytes``: as PNG when it was lossless and fits, else as
    JPEG at the best quality that fits (None when none does)."""
    if media_type in ("image/png", "image/gif", "image/webp"):
        encoded = _encode(frame, "PNG")
        if len(encoded) <= max_bytes:
            return Image("image/png", base64.b64encode(encoded).decode("ascii"))
    rgb = frame.convert("RGB")
    for quality in JPEG_QUALITIES:
        encoded = _encode(rgb, "JPEG", quality=quality)
        if len(encoded) <= max_bytes:
            return Image("image/jpeg", base64.b64encode(encoded).decode("ascii"))
    return None


def _encode(picture: object, kind: str, **options: int) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format=kind, **options)  # type: ignore[attr-defined]
    return buffer.getvalue()
