"""Capping tool output: keep the head and tail for the model, save the rest to disk."""

from __future__ import annotations

import re
import uuid

from lull.tools.base import ToolContext

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
_MIN_KEEP = 200


def _save_full_text(text: str, ctx: ToolContext) -> str:
    """Write ``text`` to the output dir; return the file path or why it failed."""
    name = _UNSAFE_NAME.sub("_", ctx.call_id) if ctx.call_id else uuid.uuid4().hex
    target = ctx.output_dir / f"{name}.txt"
    try:
        ctx.output_dir.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"full output could not be saved: {exc.strerror or exc}"
    return f"full output saved to {target}"


def _head(text: str, size: int) -> str:
    """The first ``size`` characters, cut back to a line end when one is near."""
    head = text[:size]
    cut = head.rfind("\n")
    return head[: cut + 1] if cut >= size * 0.8 else head


def _tail(text: str, size: int) -> str:
    """The last ``size`` characters, starting at a line start when one is near."""
    if size <= 0:
        return ""
    tail = text[-size:]
    cut = tail.find("\n")
    return tail[cut + 1 :] if 0 <= cut <= size * 0.2 else tail


def cap_output(text: str, ctx: ToolContext, label: str) -> str:
    """Return ``text`` unchanged if it fits ``ctx.max_output_chars``, else a capped copy.

    The capped copy keeps the head and the tail and has a marker in between that
    says how much was left out and where the full text (``label``) was saved.
    """
    budget = ctx.max_output_chars
    if len(text) <= budget:
        return text
    where = _save_full_text(text, ctx)
    marker_room = len(label) + len(where) + 60
    keep = max(budget - marker_room, _MIN_KEEP)
    head = _head(text, keep * 6 // 10)
    tail = _tail(text, keep - len(head))
    omitted = len(text) - len(head) - len(tail)
    marker = f"[... {omitted:,} characters of {label} omitted; {where} ...]"
    sep_head = "" if head.endswith("\n") or not head else "\n"
    return f"{head}{sep_head}{marker}\n{tail}"
