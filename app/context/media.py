"""Images in the context: the media window, and the last check before a wire sends them.

**Media window** (``context.media.keep``): only the newest ``keep`` messages that carry images
keep them in what the model sees; each older image becomes ``[Old image cleared: image/png,
1.2 MB]``. It is a recorded, reversible edit (:class:`~lull.model.edits.ClearMedia`) like idle
cleanup, and *when* it is applied is the fitter's schedule (``engine/fitting/fitter.py``): only at
moments
the prompt cache is rewritten anyway (another context edit is due, or the cache has gone
cold), never once per new image on a warm cache.

**Sendable images**: a provider never receives an image its model cannot take or its API
would refuse for size; such an image goes as a one-line text instead (never a 400).
"""

from __future__ import annotations

from collections.abc import Sequence

from lull.context.estimate import estimate_part_tokens
from lull.model.edits import ClearMedia, image_ref
from lull.model.media import ImageLimits, cleared_media_text, human_size, image_bytes
from lull.model.messages import Image, Message, Part, Text


def image_messages(view: Sequence[Message]) -> list[Message]:
    """The messages of ``view`` that carry at least one image, oldest first."""
    return [m for m in view if any(isinstance(p, Image) for p in m.parts)]


def plan_media_window(view: Sequence[Message], keep: int, at: float) -> ClearMedia | None:
    """Clear the images of every message with images but the newest ``keep`` (None when
    nothing is older than that)."""
    carriers = image_messages(view)
    older = carriers[: max(0, len(carriers) - max(0, keep))]
    refs: list[str] = []
    saved = 0
    for message in older:
        images = [p for p in message.parts if isinstance(p, Image)]
        for ordinal, image in enumerate(images):
            refs.append(image_ref(message.id, ordinal))
            saved += estimate_part_tokens(image) - estimate_part_tokens(
                Text(cleared_media_text(image))
            )
    if not refs:
        return None
    return ClearMedia(tuple(refs), keep=keep, tokens_saved=max(0, saved), at=at)


def describe_media(edit: ClearMedia) -> str:
    """One line saying what a media-window edit did."""
    count = len(edit.images)
    images = "image" if count == 1 else "images"
    return (
        f"media window: cleared {count} old {images} (~{edit.tokens_saved:,} tokens), kept "
        f"the newest {edit.keep} messages with images"
    )


def image_tokens(view: Sequence[Message]) -> int:
    """Estimated tokens the images of ``view`` cost (for /context)."""
    return sum(estimate_part_tokens(p) for m in view for p in m.parts if isinstance(p, Image))


def sendable_images(
    messages: Sequence[Message], model: str, accepts: bool, limits: ImageLimits
) -> Sequence[Message]:
    """``messages`` with every image ``model`` cannot take (``accepts`` False) or that is over
    ``limits`` replaced by a line saying so; the same sequence when nothing changes."""
    if not any(isinstance(p, Image) for m in messages for p in m.parts):
        return messages
    return [_sendable(m, model, accepts, limits) for m in messages]


def _sendable(message: Message, model: str, accepts: bool, limits: ImageLimits) -> Message:
    parts: list[Part] = []
    changed = False
    for part in message.parts:
        if isinstance(part, Image):
            reason = _refusal(part, model, accepts, limits)
            if reason is not None:
                parts.append(Text(f"[image left out: {reason}]"))
                changed = True
                continue
        parts.append(part)
    return message.replace_parts(tuple(parts)) if changed else message


def _refusal(image: Image, model: str, accepts: bool, limits: ImageLimits) -> str | None:
    if not accepts:
        return f"{image.media_type}; {model} does not accept images"
    size = image_bytes(image)
    if size > limits.max_bytes:
        return (
            f"{image.media_type}, {human_size(size)} is over the provider's "
            f"{human_size(limits.max_bytes)} limit"
        )
    return None
