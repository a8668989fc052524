"""The media window's plan, how cleared images read, and the wires' last check."""

from __future__ import annotations

from lull.context.media import (
    describe_media,
    image_tokens,
    plan_media_window,
    sendable_images,
)
from lull.context.restore import restorable
from lull.context.view import build_view
from lull.model.edits import ClearMedia, Restore
from lull.model.media import ImageLimits, cleared_media_text
from lull.model.messages import Image, Message, Text
from tests.images import png_image

BIG = Image("image/png", "A" * 1_600_000)  # 1.2 MB decoded


def shot(msg_id: str, *images: Image) -> Message:
    return Message("user", (Text(f"look {msg_id}"), *images), id=msg_id)


def test_only_the_newest_messages_with_images_keep_them() -> None:
    view = [shot("m1", png_image(), png_image()), shot("m2"), shot("m3", png_image()),
            shot("m4", png_image())]  # fmt: skip
    edit = plan_media_window(view, keep=2, at=1.0)
    assert edit is not None and edit.images == ("m1#0", "m1#1") and edit.keep == 2
    assert plan_media_window(view, keep=3, at=1.0) is None
    everything = plan_media_window(view, keep=0, at=1.0)
    assert everything is not None and len(everything.images) == 4


def test_a_cleared_image_says_its_type_and_size_and_comes_back_on_restore() -> None:
    transcript = [shot("m1", BIG), shot("m2", png_image()), shot("m3", png_image())]
    edit = plan_media_window(transcript, keep=2, at=1.0)
    assert edit is not None
    view = build_view(transcript, [edit])
    assert view[0].parts[1] == Text("[Old image cleared: image/png, 1.2 MB]")
    assert cleared_media_text(BIG) == "[Old image cleared: image/png, 1.2 MB]"
    assert view[1] is transcript[1]  # untouched messages stay the same objects
    assert restorable([edit], "clears") == [edit]
    restored = build_view(transcript, [edit, Restore((edit.id,))])
    assert restored[0].parts[1] == BIG
    assert "media window: cleared 1 old image" in describe_media(edit)


def test_images_have_their_share() -> None:
    assert image_tokens([shot("m1", png_image()), shot("m2")]) > 0
    assert image_tokens([shot("m2")]) == 0


def test_a_wire_never_sends_what_the_model_cannot_take() -> None:
    messages = [shot("m1", png_image()), shot("m2")]
    limits = ImageLimits(max_bytes=10_000_000, max_edge=8000)
    assert sendable_images(messages, "claude-x", True, limits) == messages
    text_only = sendable_images(messages, "deepseek-chat", False, limits)
    assert text_only[0].parts[1] == Text(
        "[image left out: image/png; deepseek-chat does not accept images]"
    )
    small = ImageLimits(max_bytes=100, max_edge=8000)
    too_big = sendable_images([shot("m1", BIG)], "gpt-5", True, small)
    assert "1.2 MB is over the provider's 100 bytes limit" in too_big[0].parts[1].text  # type: ignore[union-attr]


def test_the_edit_round_trips() -> None:
    from lull.model.edits import edit_from_dict, edit_to_dict

    edit = ClearMedia(("m1#0",), keep=2, tokens_saved=1500, at=3.0)
    assert edit_from_dict(edit_to_dict(edit)) == edit
