"""Image checks both fake APIs apply, with the real services' messages: base64 that decodes,
a media type that matches the bytes, and each API's size limits."""

from __future__ import annotations

import base64
import binascii
import re

from tests.fakes.errors import WireError, bad_request

ANTHROPIC_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
ANTHROPIC_MAX_BASE64 = 5 * 1024 * 1024
OPENAI_MAX_BYTES = 20 * 1024 * 1024
DATA_URL = re.compile(r"^data:(?P<type>[\w/+.-]+);base64,(?P<data>.*)$", re.DOTALL)
#: Models the OpenAI-compatible fake treats as text-only (DeepSeek's chat API rejects image
#: parts with this message).
TEXT_ONLY_MARKERS = ("deepseek", "text-only")
TEXT_ONLY_MESSAGE = (
    "Failed to deserialize the JSON body into the target type: messages[{i}]: unknown "
    "variant `image_url`, expected `text`"
)


def sniff(data: bytes) -> str | None:
    """The media type the bytes really are."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def decode(data: object, where: str) -> bytes:
    """Strict base64, or the 400 a real service answers."""
    if not isinstance(data, str):
        raise bad_request(f"{where}: Input should be a valid string")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise bad_request(f"{where}: Invalid base64 data") from None


def check_anthropic_image(where: str, block: dict[str, object]) -> None:
    """An Anthropic ``image`` block with a base64 source."""
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        raise bad_request(f"{where}.image.source: Input tag does not match 'base64' or 'url'")
    media_type = source.get("media_type")
    if media_type not in ANTHROPIC_MEDIA_TYPES:
        raise bad_request(
            f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', "
            "'image/png', 'image/gif' or 'image/webp'"
        )
    data = source.get("data")
    if isinstance(data, str) and len(data) > ANTHROPIC_MAX_BASE64:
        raise bad_request(
            f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > "
            f"{ANTHROPIC_MAX_BASE64} bytes"
        )
    actual = sniff(decode(data, f"{where}.image.source.base64.data"))
    if actual != media_type:
        raise bad_request(
            f"{where}.image.source.base64.data: The image was specified using the "
            f"{media_type} media type, but the image appears to be a {actual or 'unknown'} image"
        )


def check_openai_image(i: int, part: dict[str, object], model: str) -> None:
    """An OpenAI ``image_url`` content part (a data URL), on a model that takes images."""
    if any(marker in model.lower() for marker in TEXT_ONLY_MARKERS):
        raise bad_request(TEXT_ONLY_MESSAGE.format(i=i), code="invalid_request_error")
    image_url = part.get("image_url")
    url = image_url.get("url") if isinstance(image_url, dict) else None
    if not isinstance(url, str):
        raise bad_request(
            f"Missing required parameter: 'messages[{i}].content[].image_url.url'.",
            code="missing_required_parameter",
        )
    match = DATA_URL.match(url)
    if match is None:
        raise bad_request("Invalid image URL: expected a base64 data URL.", code="invalid_image")
    data = decode(match.group("data"), f"messages[{i}].content[].image_url")
    if len(data) > OPENAI_MAX_BYTES:
        raise bad_request("Image too large: images must be at most 20 MB.", code="invalid_image")
    if sniff(data) is None or match.group("type") not in ANTHROPIC_MEDIA_TYPES:
        raise bad_request(
            "You uploaded an unsupported image. Please make sure your image has of one the "
            "following formats: ['png', 'jpeg', 'gif', 'webp'].",
            code="invalid_image_format",
        )


__all__ = ["WireError", "check_anthropic_image", "check_openai_image"]
