"""Saving a prompt too large to send whole, for the model to read in parts.

The rules (when, what the model is told) are in :mod:`lull.context.large_prompt`; this
module writes the file: under the tool-output directory (which ``read_file`` may always read,
like the full texts of truncated outputs), ``prompts/<session id>/<message id>.txt``, readable
by the user only, as the session file is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lull.context.large_prompt import (
    offload_limit,
    offload_message,
    offload_notice,
    prompt_tokens,
    split_long_lines,
)
from lull.model.events import PromptOffloaded
from lull.model.text import text_bytes

PROMPTS_DIR = "prompts"


class OffloadFailed(Exception):
    """A prompt too large to send whole could not be saved (one line saying why)."""


@dataclass(frozen=True)
class Offloaded:
    """A prompt saved to a file: the message the model gets instead, and the event that
    tells the user."""

    message: str
    event: PromptOffloaded


def prompt_path(output_dir: Path, session_id: str, message_id: str) -> Path:
    """Where the prompt of message ``message_id`` of session ``session_id`` is saved."""
    return output_dir / PROMPTS_DIR / session_id / f"{message_id}.txt"


def offload_prompt(prompt: str, window: int, threshold: float, path: Path) -> Offloaded | None:
    """Save ``prompt`` to ``path`` when it is over ``threshold`` of the ``window`` (None: it
    is sent as it is). Raises :class:`OffloadFailed` when it is too large but cannot be saved."""
    tokens = prompt_tokens(prompt)
    limit = offload_limit(window, threshold)
    if tokens <= limit:
        return None
    saved, split = split_long_lines(prompt)
    try:
        data = saved.encode("utf-8", "surrogateescape")  # piped bytes come back as they were
    except UnicodeEncodeError:
        data = text_bytes(saved)
    try:
        _write_private(path, data)
    except OSError as error:
        reason = error.strerror or str(error)
        raise OffloadFailed(
            f"the message is ~{tokens:,} tokens, more than {limit:,} "
            f"(context.promptOffloadThreshold of the window), and could not be saved to {path} "
            f"for the model to read in parts ({reason}); it was not sent. Shorten it, or save "
            "it to a file in the workspace and ask about that file"
        ) from error
    shown = str(path)
    message = offload_message(shown, saved, tokens, limit, len(data), split)
    notice = offload_notice(shown, tokens, limit)
    return Offloaded(message, PromptOffloaded(shown, tokens, limit, notice))


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file at ``path`` that only the user may read."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
