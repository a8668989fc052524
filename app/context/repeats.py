"""Repeated results: a read or a query whose output the model already has in full.

The within-turn duplicate guard (``engine/guardrails/calls.py``) does not run a read-only call
again when nothing was written or run since. Across turns (and after a write or a command in
the same turn) the call runs, and its fresh output is compared with the earlier results still
visible in full in the view; when the model already has exactly that text, the new result is
a short pointer instead of a second copy (``engine/calls/repeats.py`` does the I/O):

* ``read_file``: the same file (resolved path) read before, and the new output is that
  earlier output, or a run of whole lines of it with the same line numbers (a range of a
  file read in full before), while the earlier result is sent untruncated;
* ``grep_search``, ``glob``, ``list_directory``: the same call (its fingerprint) gave exactly
  the same output before.

Comparing the fresh output, not a clock or a hash, is what keeps a pointer true: a file the
user changed between turns, a write in between, a new match of a search all give another
output, and the content is returned as usual. A pointer names the earlier call and its recall
id, so a model whose earlier copy was cleared later (idle cleanup, compression) gets it back
with ``recall``. Pure functions; pointers are recognised by their first words.
"""

from __future__ import annotations

from collections.abc import Iterable

from lull.model.messages import ToolResult, is_cleared_text

READ_TOOL = "read_file"
QUERY_TOOLS = frozenset({"grep_search", "glob", "list_directory"})
REPEAT_TOOLS = QUERY_TOOLS | {READ_TOOL}
"""The tools whose repeated output becomes a pointer."""

REPEAT_PREFIX = "[Unchanged since call "
DUPLICATE_PREFIX = "Not run again: this is the same call as "
FOOTER_START = "\n[showing lines "
"""Where ``read_file``'s footer (lines shown, how to read on) begins."""
MIN_SAVING_CHARS = 200
"""A result is replaced by a pointer only when that saves at least this many characters."""


def unchanged_read_pointer(call_id: str, shown: str, lines: tuple[int, int] | None) -> str:
    """The result of a read whose output the earlier read ``call_id`` shows already
    (``lines``: the first and last line of a range of it; None: the very same output)."""
    what = f"{shown} reads" if lines is None else f"lines {lines[0]}-{lines[1]} of {shown} read"
    return (
        f"{REPEAT_PREFIX}{call_id}: {what} exactly as in that read_file result above, which "
        "is still in your context, so it is not sent again. If that result has been cleared "
        f"since, recall id {call_id} brings it back.]"
    )


def same_query_pointer(call_id: str, tool: str) -> str:
    """The result of a query that gave exactly the output of the earlier call ``call_id``."""
    return (
        f"{REPEAT_PREFIX}{call_id}: this {tool} call gave exactly the output of that call "
        "above, which is still in your context, so it is not sent again. If that result has "
        f"been cleared since, recall id {call_id} brings it back.]"
    )


def duplicate_call_pointer(call_id: str, step: int) -> str:
    """The result a duplicate read-only call of the same turn gets instead of running again."""
    return (
        f"{DUPLICATE_PREFIX}{call_id} (step {step} of this turn), and nothing was written or "
        "run since, so its result above still holds."
    )


def is_pointer(content: str) -> bool:
    """True for a result that points to an earlier one instead of carrying its output (a
    repeated result, or a duplicate call of the same turn)."""
    return content.startswith((REPEAT_PREFIX, DUPLICATE_PREFIX))


def holds_output(result: ToolResult) -> bool:
    """A successful result that carries its output (not cleared, not a pointer): one a
    repeat may point to."""
    return (
        not result.is_error
        and not result.cleared
        and not is_cleared_text(result.content)
        and not is_pointer(result.content)
    )


def read_body(content: str) -> str:
    """The numbered lines of a ``read_file`` output, without its footer."""
    body, _, _ = content.partition(FOOTER_START)
    return body if body.endswith("\n") else ""


def read_pointer(
    content: str,
    shown: str,
    lines: tuple[int, int],
    earlier: Iterable[ToolResult],
) -> str | None:
    """The pointer for a ``read_file`` output ``content`` (lines ``lines`` of ``shown``) when
    one of the ``earlier`` reads of the same file (newest first, each sent untruncated) shows
    it already; None otherwise. A range keeps the new output's footer (how to read on)."""
    body = read_body(content)
    if not body:
        return None
    for result in earlier:
        if not holds_output(result):
            continue
        if result.content == content:
            pointer = unchanged_read_pointer(result.call_id, shown, None)
        elif ("\n" + result.content).find("\n" + body) >= 0:
            pointer = unchanged_read_pointer(result.call_id, shown, lines)
            pointer += content[len(body) :]
        else:
            continue
        return pointer if len(content) - len(pointer) >= MIN_SAVING_CHARS else None
    return None


def query_pointer(content: str, tool: str, earlier: Iterable[ToolResult]) -> str | None:
    """The pointer for a query's output ``content`` when one of the ``earlier`` results of
    the same call (newest first) is exactly that output; None otherwise."""
    for result in earlier:
        if holds_output(result) and result.content == content:
            pointer = same_query_pointer(result.call_id, tool)
            return pointer if len(content) - len(pointer) >= MIN_SAVING_CHARS else None
    return None
