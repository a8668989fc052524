"""Images from the system clipboard: saved as PNG files for the prompt to attach."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image as Picture

from lull.tools.media.clipboard import ClipboardUnavailable, grab_clipboard, save_clipboard_image

NOON = 1_700_000_000.0


def test_an_image_is_saved_as_a_png(tmp_path: Path) -> None:
    picture = Picture.new("RGB", (20, 10), (1, 2, 3))
    first = save_clipboard_image(tmp_path / "clip", lambda: picture, lambda: NOON)
    second = save_clipboard_image(tmp_path / "clip", lambda: picture, lambda: NOON)
    assert first is not None and second is not None and first != second
    assert first.read_bytes().startswith(b"\x89PNG") and first.name.startswith("clipboard-")
    with Picture.open(first) as saved:
        assert saved.size == (20, 10)


def test_copied_image_files_and_empty_clipboards(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"\x89PNG\r\n\x1a\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("x")
    assert save_clipboard_image(tmp_path, lambda: [str(notes), str(shot)]) == shot
    assert save_clipboard_image(tmp_path, lambda: [str(notes)]) is None
    assert save_clipboard_image(tmp_path, lambda: None) is None
    assert save_clipboard_image(tmp_path, lambda: "some text") is None


def test_old_saved_images_are_pruned(tmp_path: Path) -> None:
    picture = Picture.new("RGB", (2, 2))
    for _ in range(4):
        save_clipboard_image(tmp_path, lambda: picture, lambda: NOON, keep=2)
    assert len(list(tmp_path.glob("clipboard-*.png"))) == 2


def test_no_clipboard_reader_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import ImageGrab

    def missing() -> None:
        raise NotImplementedError("wl-paste or xclip is required")

    monkeypatch.setattr(ImageGrab, "grabclipboard", missing)
    with pytest.raises(ClipboardUnavailable, match=r"install wl-clipboard .* or xclip"):
        grab_clipboard()
