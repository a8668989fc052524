"""Which models accept images, and how large an image each provider takes."""

from __future__ import annotations

from lull.model.media import ImageLimits

#: Substrings of model names that accept image input (checked lower-case). Claude 3 and
#: later, GPT-4o / 4.1 / 5 and the o-series, and models whose name says "vision" or "vl".
_VISION_MARKERS = (
    "claude",
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-5",
    "o3",
    "o4",
    "vision",
    "-vl",
    "vl-",
    "qwen-vl",
    "gemini",
    "llava",
    "pixtral",
    "kimi-k2.5",
)

#: Each provider's hard limit on one image (decoded bytes, longer edge): Anthropic refuses
#: more than 5 MB of base64 or 8000 px; OpenAI 20 MB per image.
PROVIDER_LIMITS: dict[str, ImageLimits] = {
    "anthropic": ImageLimits(max_bytes=5 * 1024 * 1024 * 3 // 4, max_edge=8000),
    "openai": ImageLimits(max_bytes=20 * 1024 * 1024, max_edge=16_000),
}
_DEFAULT_LIMITS = ImageLimits(max_bytes=5 * 1024 * 1024 * 3 // 4, max_edge=8000)


def accepts_images(model: str) -> bool:
    """Whether ``model`` takes images in a prompt (unknown models: no, so nothing is sent
    that a text-only server would reject)."""
    name = model.lower()
    return any(marker in name for marker in _VISION_MARKERS)


def provider_image_limits(provider: str) -> ImageLimits:
    """The hard per-image limit of ``provider`` ("anthropic", "openai")."""
    return PROVIDER_LIMITS.get(provider, _DEFAULT_LIMITS)
