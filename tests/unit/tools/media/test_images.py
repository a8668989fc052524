"""Image files as inline images: format from the bytes, dimensions, scaling down, refusals."""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest
from PIL import Image as Picture

from lull.model.media import UPLOAD_LIMITS, ImageLimits, image_bytes
from lull.tools.media.images import (
    ImageRefused,
    image_dimensions,
    prepare_image,
    read_image_file,
    sniff_media_type,
)
from lull.tools.media.regular import NotRegularFile
from tests.images import jpeg_bytes, png_bytes


def test_formats_come_from_the_bytes() -> None:
    assert sniff_media_type(png_bytes()) == "image/png"
    assert sniff_media_type(jpeg_bytes()) == "image/jpeg"
    assert sniff_media_type(b"GIF89a....") == "image/gif"
    assert sniff_media_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_media_type(b"plain text") is None


def test_dimensions_are_read_from_the_header() -> None:
    assert image_dimensions(png_bytes(40, 30), "image/png") == (40, 30)
    assert image_dimensions(jpeg_bytes(33, 21), "image/jpeg") == (33, 21)


def test_a_small_image_goes_as_it_is() -> None:
    data = png_bytes(20, 10)
    image = prepare_image(data)
    assert image.media_type == "image/png"
    assert base64.b64decode(image.data) == data


def test_a_large_image_is_scaled_down_to_the_limits() -> None:
    image = prepare_image(png_bytes(3000, 1000))
    decoded = base64.b64decode(image.data)
    with Picture.open(io.BytesIO(decoded)) as picture:
        assert max(picture.size) == UPLOAD_LIMITS.max_edge
        assert picture.size == (1568, 523)


def test_a_heavy_image_becomes_a_jpeg_under_the_byte_limit() -> None:
    limits = ImageLimits(max_bytes=60_000, max_edge=400)
    image = prepare_image(png_bytes(400, 400, noisy=True), limits)
    assert image.media_type == "image/jpeg"
    assert image_bytes(image) <= limits.max_bytes


def test_what_cannot_be_sent_is_refused_with_a_reason() -> None:
    with pytest.raises(ImageRefused, match="not a PNG, JPEG, GIF or WebP image"):
        prepare_image(b"%PDF-1.7 not an image")
    with pytest.raises(ImageRefused, match="cannot be decoded"):
        prepare_image(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, ImageLimits(10, 10))
    with pytest.raises(ImageRefused, match="still over 200 bytes after scaling it down"):
        prepare_image(png_bytes(300, 300, noisy=True), ImageLimits(max_bytes=200, max_edge=300))


@pytest.mark.timeout(10)
def test_a_fifo_named_like_an_image_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "shot.png")
    with pytest.raises(NotRegularFile) as info:
        read_image_file(tmp_path / "shot.png")  # no writer: a plain open would wait for good
    assert str(info.value) == "a FIFO (named pipe), not a regular file"
