"""An image on the system clipboard, saved as a PNG file the prompt can attach.

The TUI's Ctrl+V asks here first (``app/ui/tui/widgets/prompt_input.py``): a picture on
the clipboard is saved under ``<state>/clipboard/`` and its path goes into the message,
where the mention rules attach it like any pasted image path. Pillow's ``ImageGrab`` reads
the clipboard (macOS and Windows natively, Linux through ``wl-paste`` or ``xclip``); it is
imported only when asked. A terminal without a reachable clipboard simply has no image.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lull.model.media import IMAGE_SUFFIXES

log = logging.getLogger("lull.clipboard")

Grabber = Callable[[], Any]
"""Returns what the clipboard holds: a PIL image, a list of file names, or None."""

KEEP_FILES = 50
"""Older saved clipboard images are removed beyond this many."""


class ClipboardUnavailable(Exception):
    """The clipboard cannot be read here, as one line saying why (and what would help)."""


def grab_clipboard() -> Any:
    """The clipboard's content through Pillow (an image, file names, or None)."""
    from PIL import ImageGrab

    try:
        return ImageGrab.grabclipboard()
    except NotImplementedError:
        raise ClipboardUnavailable(
            "no clipboard reader: install wl-clipboard (Wayland) or xclip (X11)"
        ) from None
    except Exception as error:  # a clipboard tool that failed (no display, no image type)
        raise ClipboardUnavailable(f"the clipboard could not be read: {error}") from None


def save_clipboard_image(
    directory: Path,
    grab: Grabber = grab_clipboard,
    now: Callable[[], float] = time.time,
    keep: int = KEEP_FILES,
) -> Path | None:
    """Save the clipboard's image in ``directory`` and return its path (the newest ``keep``
    saved images stay); a copied image file is returned as it is. None when the clipboard
    holds no image. Raises :class:`ClipboardUnavailable`."""
    content = grab()
    if content is None:
        return None
    if isinstance(content, list):  # files copied in a file manager
        for name in content:
            path = Path(str(name))
            if path.suffix.lower() in IMAGE_SUFFIXES and path.is_file():
                return path
        return None
    if not hasattr(content, "save"):
        return None
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now()))
    path = _free_name(directory, f"clipboard-{stamp}")
    content.save(path, format="PNG")
    _prune(directory, keep)
    return path


def _free_name(directory: Path, stem: str) -> Path:
    path = directory / f"{stem}.png"
    number = 1
    while path.exists():
        number += 1
        path = directory / f"{stem}-{number}.png"
    return path


def _prune(directory: Path, keep: int) -> None:
    """Keep the newest ``keep`` saved images."""
    saved = sorted(directory.glob("clipboard-*.png"), key=lambda p: (p.stat().st_mtime, p.name))
    for old in saved[: max(0, len(saved) - keep)]:
        try:
            old.unlink()
        except OSError as error:
            log.debug("could not remove %s: %s", old, error)
