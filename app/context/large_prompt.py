"""A prompt too large to send whole: what is saved, and what the model is told instead.

Myrm's gateway refuses payloads over 120K tokens outright; a coding assistant cannot refuse
what the user pasted or piped, so lull keeps it and lets the model page through it. A prompt
(typed, pasted, piped on stdin to ``-p``, or a custom command's expansion) estimated at more
than ``context.promptOffloadThreshold`` of the context window (a quarter by default, so the
rest of the window stays for the conversation, the files the model reads and its answer) is
saved to a file (``engine/loop/large_prompt.py``), and the message the model gets says where
it is, how large it is and how to read it with ``read_file``, with its first and last lines.
It is never sent whole. Pure functions.
"""

from __future__ import annotations

import math
import re

from lull.model.media import human_size

PREVIEW_HEAD_LINES = 20
PREVIEW_TAIL_LINES = 5
PREVIEW_LINE_CHARS = 200
LINE_CHARS = 1000
"""Longer lines are split in the saved file, so ``read_file`` (which shortens lines over
2,000 characters) shows every character of them."""
READ_LINES = 300
"""How many lines at a time the message suggests reading."""
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


def prompt_tokens(text: str) -> int:
    """A deliberately high token estimate of a prompt: ASCII at four characters a token,
    every other character a token of its own (CJK text, emoji and accented letters cost
    more than the characters/4 rule says)."""
    if text.isascii():
        return math.ceil(len(text) / 4)
    other = sum(1 for char in text if not char.isascii())
    return math.ceil((len(text) - other) / 4) + other


def offload_limit(window: int, threshold: float) -> int:
    """The most tokens a prompt is sent whole with: ``threshold`` of the ``window``."""
    return max(1, int(window * threshold))


def split_long_lines(text: str) -> tuple[str, int]:
    """``text`` with each line longer than :data:`LINE_CHARS` split into lines of that
    length (no character dropped; line breaks as ``read_file`` counts them: ``\\n``, ``\\r\\n``,
    ``\\r``), and how many lines were split."""
    pieces = _LINE_BREAK.split(text)  # line, break, line, break, ..., last line
    split = 0
    for index in range(0, len(pieces), 2):
        line = pieces[index]
        if len(line) > LINE_CHARS:
            split += 1
            chunks = (line[i : i + LINE_CHARS] for i in range(0, len(line), LINE_CHARS))
            pieces[index] = "\n".join(chunks)
    return "".join(pieces), split


def line_count(text: str) -> int:
    """Lines of ``text`` as ``read_file`` numbers them."""
    breaks = len(_LINE_BREAK.findall(text))
    return breaks + (0 if not text or text.endswith(("\n", "\r")) else 1)


def preview(saved: str) -> tuple[list[str], list[str]]:
    """The first and the last lines of the saved text (each shortened), for the message."""
    lines = _LINE_BREAK.split(saved)[::2]
    if lines and not lines[-1]:
        lines.pop()  # after the last line break

    def short(line: str) -> str:
        return line if len(line) <= PREVIEW_LINE_CHARS else line[:PREVIEW_LINE_CHARS] + " […]"

    head = [short(line) for line in lines[:PREVIEW_HEAD_LINES]]
    rest = lines[PREVIEW_HEAD_LINES:]
    tail = [short(line) for line in rest[-PREVIEW_TAIL_LINES:]]
    return head, tail


def offload_message(
    path: str, saved: str, tokens: int, limit: int, size_bytes: int, split: int
) -> str:
    """What the model gets instead of a prompt of ``tokens`` tokens saved as ``saved`` to
    ``path`` (``limit``: the most a prompt is sent whole with; ``split``: long lines split)."""
    head, tail = preview(saved)
    total = line_count(saved)
    split_note = (
        f" {split:,} line(s) longer than {LINE_CHARS:,} characters were split into several "
        "lines in the file (no character was dropped)."
        if split
        else ""
    )
    parts = [
        f"[lull: the user's message was too large to send whole (~{tokens:,} tokens; the limit "
        f"is {limit:,}, context.promptOffloadThreshold of the context window). It is saved in "
        f"full to {path} ({total:,} lines, {human_size(size_bytes)}).{split_note} Read it "
        f"with read_file in parts (path {path}, offset and limit, about {READ_LINES} lines at "
        "a time) before you answer: it is the user's actual message, and lines you did not "
        "read may matter. Its first lines:]",
        "\n".join(head),
    ]
    if tail:
        skipped = total - len(head) - len(tail)
        gap = f"[… {skipped:,} more lines …]\n" if skipped > 0 else ""
        parts.append(f"{gap}[its last lines:]\n" + "\n".join(tail))
    return "\n".join(parts)


def offload_notice(path: str, tokens: int, limit: int) -> str:
    """The line the user sees when their prompt was saved to a file instead of sent."""
    return (
        f"the message is ~{tokens:,} tokens, more than {limit:,} "
        f"(context.promptOffloadThreshold of the window): saved to {path}; the model was sent "
        "its first and last lines and reads the rest in parts with read_file"
    )
