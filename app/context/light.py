"""The light step: superseded tool outputs replaced by a pointer, without a model call.

Runs once each time the context crosses the light line (``context.compression.
lightThreshold``, see ``stages.py``). A successful tool result is superseded when

* it is a read of a file that was read again **in full** later (no ``offset``/``limit``):
  the older copy goes (not when the later read is a pointer back to it:
  ``context/repeats.py``);
* it is a read of a file that a later successful ``write_file`` or ``edit`` changed: the
  read is stale;
* its output is exactly the same as a later result of the same tool: the older duplicate
  goes.

The newest copy always stays; errors, notes, cleared results, pointers and results that are
no larger than their pointer are never touched. The step returns one :class:`Supersede`
context edit (reversible with ``/context restore``, like idle clears), or None — also when it
would free less than ``min_saving`` tokens: every rewrite costs a prompt-cache write of what
follows the first changed block, which a small saving does not pay back (anti-thrash, like a
compression that frees little).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lull.context.repeats import is_pointer
from lull.context.tiers import READ_TOOLS, WRITE_TOOLS, calls_by_id, file_path
from lull.model.edits import Supersede
from lull.model.messages import Message, ToolCall, ToolResult, is_cleared_text
from lull.model.notes import NOTE_TOOL

Saving = Callable[[ToolResult, str], int]
"""Tokens saved by replacing a result's content with a pointer text."""


def reread_pointer(path: str, call_id: str) -> str:
    """The pointer of a read whose file was read again in full later."""
    return f"[Superseded: {path} was read again in full later (call {call_id}); older copy omitted]"


def stale_pointer(path: str, tool: str, call_id: str) -> str:
    """The pointer of a read that a later write or edit made stale."""
    return (
        f"[Stale: {path} was changed later by {tool} (call {call_id}); this older content is "
        "omitted, read the file again if needed]"
    )


def duplicate_pointer(tool: str, call_id: str) -> str:
    """The pointer of an output that a later call of the same tool repeated exactly."""
    return f"[Same output as the later {tool} call {call_id}; omitted here]"


MIN_SHARE = 0.25
"""The least share of the prompt a light step must free to be worth a cache rewrite."""


def plan_light(
    view: Sequence[Message], saving: Saving, *, at: float, min_saving: int = 0
) -> Supersede | None:
    """The light step's edit for ``view`` (None when nothing is superseded, or when it would
    free less than ``min_saving`` tokens)."""
    calls = calls_by_id(view)
    results = [
        (r, calls[r.call_id])
        for m in view
        for r in m.tool_results
        if r.call_id in calls and _eligible(r)
    ]
    pointers: dict[str, str] = {}
    for index, (result, call) in enumerate(results):
        pointer = _superseded_by(result, call, results[index + 1 :])
        if pointer is not None and saving(result, pointer) > 0:
            pointers[result.call_id] = pointer
    saved = sum(saving(r, pointers[r.call_id]) for r, _ in results if r.call_id in pointers)
    if not pointers or saved < min_saving:
        return None
    return Supersede(tuple(pointers), tuple(pointers.values()), tokens_saved=saved, at=at)


def _eligible(result: ToolResult) -> bool:
    """Successful, not cleared yet, not a note: the results the light step may look at."""
    return (
        not result.is_error
        and not result.cleared
        and not is_cleared_text(result.content)
        and not is_pointer(result.content)
        and result.name != NOTE_TOOL
    )


def _superseded_by(
    result: ToolResult, call: ToolCall, later: Sequence[tuple[ToolResult, ToolCall]]
) -> str | None:
    """The pointer for ``result`` if something ``later`` supersedes it, else None."""
    path = file_path(call) if call.name in READ_TOOLS else None
    for newer, newer_call in later:
        if path is not None and file_path(newer_call) == path:
            if newer_call.name in WRITE_TOOLS:
                return stale_pointer(path, newer_call.name, newer_call.id)
            if _reads_in_full(newer_call) and not is_pointer(newer.content):
                return reread_pointer(path, newer_call.id)
        if newer.name == result.name and newer.content == result.content:
            return duplicate_pointer(newer.name, newer_call.id)
    return None


def _reads_in_full(call: ToolCall) -> bool:
    arguments = call.arguments
    return call.name in READ_TOOLS and "offset" not in arguments and "limit" not in arguments
