"""Which models accept images (an MCP tool's screenshot is sent only to those)."""

from __future__ import annotations

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


def accepts_images(model: str) -> bool:
    """Whether ``model`` takes images in a prompt (unknown models: no, so nothing is sent
    that a text-only server would reject)."""
    name = model.lower()
    return any(marker in name for marker in _VISION_MARKERS)
