"""Small real images for tests (made with Pillow, in memory)."""

from __future__ import annotations

import base64
import io
import random

from PIL import Image as Picture

from lull.model.messages import Image


def png_bytes(width: int = 8, height: int = 6, *, noisy: bool = False) -> bytes:
    """A PNG of ``width`` x ``height``; ``noisy`` pixels compress badly (a large file)."""
    picture = Picture.new("RGB", (width, height), (200, 30, 30))
    if noisy:
        rng = random.Random(7)
        picture.putdata(
            [(rng.randrange(256), rng.randrange(256), rng.randrange(256))
             for _ in range(width * height)]
        )  # fmt: skip
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def jpeg_bytes(width: int = 8, height: int = 6) -> bytes:
    """A JPEG of ``width`` x ``height``."""
    buffer = io.BytesIO()
    Picture.new("RGB", (width, height), (30, 200, 30)).save(buffer, format="JPEG")
    return buffer.getvalue()


def png_image(width: int = 8, height: int = 6) -> Image:
    """An inline PNG image part."""
    return Image("image/png", base64.b64encode(png_bytes(width, height)).decode("ascii"))
