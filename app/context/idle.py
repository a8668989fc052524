"""Idle cleanup planning (microcompaction): lull's headline feature.

When the user comes back after an idle gap, the provider's prompt cache is cold
anyway, so stale context can be shed for free before the next request. This
module decides *what* to shed; it never edits anything. It returns context
edits (``app/model/edits.py``) that the engine records in the session and
applies through ``build_view``, so every clear is reversible and resumable.

Pure functions: no I/O and no clock reads (``now`` is passed in, in epoch
seconds like ``time.time()``).

Rules (DESIGN.md §3), where they go beyond the reference design:

* Tool results: only *clearable* results take a keep slot — successful,
  compactable, not yet cleared, and big enough that the sentinel is smaller.
  Errors, already-cleared, tiny and non-compactable results (and session notes)
  are never cleared and take no slot. A keep count of 0 keeps none.
* Inline images: by the same threshold, the newest N images stay (their own
  count, like the reference) and older ones become
  ``[Old inline media cleared: <mime>]``, in the same edit.
* Thinking (``idle_thinking.py``): removed per provider rule; never from a
  message whose only substantive content is thinking (it would leave an empty
  assistant message),
  never from tool-call messages under ``keep_tool_calls`` (DeepSeek, Kimi), and
  never from the tool loop the view ends inside (an interrupted turn: the API
  still needs that loop's reasoning).
* Planning on a view that already has the edits applied yields no edit.
* Only what is cold: messages before ``cold_from`` lie in a prompt prefix the provider still
  caches (the cache clock, ``cache_clock.py``); nothing in them is cleared (they still count
  for the keep rule), so a cleanup never discards a warm cache — with a one-hour stable part
  it waits for that part to go cold. A threshold the user set (``IdlePolicy.explicit``) is
  the exception: what the user set wins, so that kind clears at its threshold, warm cache or
  not (the next request then writes the cache again; lull says so once at start).
* One cleanup per kind and gap: each kind (tool results, thinking) is cleared at
  most once per idle gap, and a kind not handled yet in a gap (its threshold was
  not reached when an earlier message of the gap failed or was cancelled) still
  is once the gap reaches it. A ``/context restore`` of a kind's clears starts
  that kind's gap afresh at the restore (:func:`gap_starts`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, assert_never

from lull.context.cache_lifetime import SHORT_MINUTES
from lull.context.estimate import estimate_part_tokens
from lull.context.idle_thinking import ThinkingRule, plan_thinking, thinking_rule_for
from lull.context.media import describe_media
from lull.context.working_set import working_set
from lull.model import defaults
from lull.model.edits import (
    ClearMedia,
    ClearThinking,
    ClearToolResults,
    ContextEdit,
    Restore,
    Rewind,
    Summary,
    Supersede,
    image_ref,
)
from lull.model.messages import (
    Image,
    Message,
    Text,
    ToolResult,
    cleared_image_text,
    cleared_result_text,
    is_cleared_text,
)
from lull.model.notes import NOTE_TOOL

__all__ = [
    "DEFAULT_COMPACTABLE",
    "IdlePolicy",
    "ThinkingRule",
    "describe_edit",
    "gap_starts",
    "idle_gap_minutes",
    "plan_idle_cleanup",
    "thinking_rule_for",
]

IdleKind = Literal["tool_results", "thinking"]
IDLE_KINDS: tuple[IdleKind, ...] = ("tool_results", "thinking")

DEFAULT_COMPACTABLE: frozenset[str] = frozenset(
    {
        "read_file",
        "run_shell_command",
        "grep_search",
        "glob",
        "web_fetch",
        "web_search",
        "edit",
        "write_file",
        "recall",
    }
)
DEFAULT_NUM_TO_KEEP = defaults.TOOL_RESULTS_NUM_TO_KEEP


@dataclass(frozen=True)
class IdlePolicy:
    """The idle cleanup settings (``context.clearContextOnIdle``) plus compactable tools.

    A negative threshold disables that cleanup; minutes may be fractional.
    ``compactable`` names the tools whose old results may be cleared. ``explicit`` names the
    kinds whose threshold the user set (a settings file, an env variable, a flag): those
    clear when the gap reaches it even while the cache is warm; lull's defaults wait for
    the cache to go cold.
    """

    thinking_threshold_minutes: float = defaults.THINKING_THRESHOLD_MINUTES
    tool_results_threshold_minutes: float = defaults.TOOL_RESULTS_THRESHOLD_MINUTES
    tool_results_num_to_keep: int = DEFAULT_NUM_TO_KEEP
    compactable: frozenset[str] = DEFAULT_COMPACTABLE
    explicit: frozenset[IdleKind] = frozenset()
    keep_working_set: bool = defaults.KEEP_WORKING_SET
    """Keep, beyond the newest N, what the work still uses (``working_set.py``)."""


def idle_gap_minutes(last_response_at: float | None, now: float) -> float | None:
    """Minutes since the last completed API response, or None when there is no gap.

    None for a brand-new session (no response yet), a non-finite result, or a
    clock that went backwards.
    """
    if last_response_at is None:
        return None
    gap = (now - last_response_at) / 60.0
    if not math.isfinite(gap) or gap < 0:
        return None
    return gap


def gap_matters(gap: float | None, policy: IdlePolicy) -> bool:
    """Whether an idle gap of ``gap`` minutes can change anything when a turn starts: a pause
    of five minutes or more (the cache keeper notes it), or a cleanup threshold reached
    (:func:`plan_idle_cleanup` plans nothing otherwise: each kind's gap is part of it)."""
    if gap is None:
        return False
    return gap >= SHORT_MINUTES or any(
        _reached(gap, threshold)
        for threshold in (policy.tool_results_threshold_minutes, policy.thinking_threshold_minutes)
    )


def gap_starts(
    edits: Sequence[ContextEdit], last_response_at: float | None
) -> dict[IdleKind, float | None]:
    """When the current idle gap started for each kind, or None when there is no gap or that
    kind was already cleared in it.

    A gap starts at the last response. An idle clear of a kind since then handles the kind
    for this gap (never twice for one gap); a later :class:`Restore` of that kind's clears
    (idle, emergency or light) starts the kind's gap afresh at the restore, so it is cleared
    again only after a full threshold from there. Edits of one kind never hold back the
    other kind.
    """
    starts: dict[IdleKind, float | None] = dict.fromkeys(IDLE_KINDS, last_response_at)
    if last_response_at is None:
        return starts
    by_id = {edit.id: edit for edit in edits}
    for edit in edits:
        if edit.at < last_response_at:
            continue
        match edit:
            case ClearToolResults(reason="idle"):
                starts["tool_results"] = None
            case ClearThinking(reason="idle"):
                starts["thinking"] = None
            case Restore(edit_ids=ids):
                for kind in _kinds_of(by_id.get(i) for i in ids):
                    starts[kind] = edit.at
            case (
                ClearToolResults()
                | ClearThinking()
                | Summary()
                | Supersede()
                | ClearMedia()
                | Rewind()
            ):
                pass
            case _:
                assert_never(edit)
    return starts


def _kinds_of(edits: Iterable[ContextEdit | None]) -> set[IdleKind]:
    """The idle kinds whose content these (restored) edits had removed."""
    kinds: set[IdleKind] = set()
    for edit in edits:
        if isinstance(edit, ClearToolResults | Supersede):
            kinds.add("tool_results")
        elif isinstance(edit, ClearThinking):
            kinds.add("thinking")
    return kinds


def plan_idle_cleanup(
    view: Sequence[Message],
    *,
    policy: IdlePolicy,
    last_response_at: float | None,
    now: float,
    thinking_rule: ThinkingRule,
    edits: Sequence[ContextEdit] = (),
    cold_from: int = 0,
) -> list[ContextEdit]:
    """The idle edits to record before a new user message is appended to ``view``.

    Returns 0..2 edits: a :class:`ClearToolResults` when the kind's gap reaches the
    tool-results threshold and a :class:`ClearThinking` when it reaches the thinking
    threshold — each only if it would change something. ``edits`` are the session's edits
    so far: they say which kinds this gap already handled (:func:`gap_starts`);
    ``cold_from`` is the first message outside the warm cached prefix (0: all cold).
    """
    starts = gap_starts(edits, last_response_at)
    planned: list[ContextEdit] = []
    gap = _gap(starts["tool_results"], now)
    if gap is not None and _reached(gap, policy.tool_results_threshold_minutes):
        cold = 0 if "tool_results" in policy.explicit else cold_from
        tool_edit = _plan_tool_results(view, policy, gap, now, cold)
        if tool_edit is not None:
            planned.append(tool_edit)
    gap = _gap(starts["thinking"], now)
    if gap is not None and _reached(gap, policy.thinking_threshold_minutes):
        cold = 0 if "thinking" in policy.explicit else cold_from
        thinking_edit = plan_thinking(view, thinking_rule, gap, now, cold)
        if thinking_edit is not None:
            planned.append(thinking_edit)
    return planned


def _gap(start: float | None, now: float) -> float | None:
    return None if start is None else idle_gap_minutes(start, now)


def describe_edit(edit: ContextEdit, policy: IdlePolicy) -> str:
    """The one-line log / notice text for an edit this module planned.

    e.g. ``idle cleanup: gap 65.0 min >= 60 min, cleared 12 tool results
    (~8400 tokens), kept 5``.
    """
    match edit:
        case ClearToolResults():
            images = f" and {_count(len(edit.images), 'image')}" if edit.images else ""
            what = (
                f"cleared {_count(len(edit.call_ids), 'tool result')}{images} "
                f"(~{edit.tokens_saved} tokens), kept {edit.kept}"
            )
            threshold = policy.tool_results_threshold_minutes
            return _with_trigger(edit.reason, edit.gap_minutes, threshold, what)
        case ClearThinking():
            what = (
                f"cleared thinking from {_count(len(edit.message_ids), 'message')} "
                f"(~{edit.tokens_saved} tokens)"
            )
            threshold = policy.thinking_threshold_minutes
            return _with_trigger(edit.reason, edit.gap_minutes, threshold, what)
        case Supersede():
            return (
                f"light step: replaced {_count(len(edit.call_ids), 'superseded tool output')} "
                f"with pointers (~{edit.tokens_saved} tokens)"
            )
        case ClearMedia():
            return describe_media(edit)
        case Summary() | Restore() | Rewind():
            return f"context edit: {edit.kind}"
        case _:
            assert_never(edit)


# --- tool results ----------------------------------------------------------------------------


def _plan_tool_results(
    view: Sequence[Message], policy: IdlePolicy, gap: float, now: float, cold_from: int = 0
) -> ClearToolResults | None:
    keep = _keep_count(policy.tool_results_num_to_keep)
    clearable: list[tuple[int, ToolResult]] = []
    protected: set[str] = set()
    for index, message in enumerate(view):
        for part in message.parts:
            if not isinstance(part, ToolResult):
                continue
            if is_clearable(part, policy.compactable):
                clearable.append((index, part))
            else:
                protected.add(part.call_id)
    newest = clearable[len(clearable) - keep :] if keep else []
    older = clearable[: len(clearable) - len(newest)]
    # A call id shared with a kept or protected result (malformed history) is never cleared.
    protected.update(p.call_id for _, p in newest)
    candidates = [p for index, p in older if p.call_id not in protected and index >= cold_from]
    working = working_set(view, candidates) if policy.keep_working_set else []
    in_use = {k.call_id for k in working}
    targets = [p for p in candidates if p.call_id not in in_use]
    images, image_tokens = _plan_images(view, keep, cold_from)
    if not targets and not images:
        return None
    return ClearToolResults(
        call_ids=tuple(dict.fromkeys(p.call_id for p in targets)),
        reason="idle",
        tokens_saved=sum(_clear_saving(p) for p in targets) + image_tokens,
        kept=len(newest) + len(working),
        gap_minutes=gap,
        at=now,
        images=images,
        kept_for=tuple(k.describe() for k in working),
    )


def _plan_images(
    view: Sequence[Message], keep: int, cold_from: int = 0
) -> tuple[tuple[str, ...], int]:
    """Refs of the inline images older than the newest ``keep`` (outside the warm prefix that
    ends at ``cold_from``), and the tokens freed."""
    found: list[tuple[str, int, bool]] = []
    for index, message in enumerate(view):
        images = [p for p in message.parts if isinstance(p, Image)]
        for ordinal, image in enumerate(images):
            saved = estimate_part_tokens(image) - estimate_part_tokens(
                Text(cleared_image_text(image.media_type))
            )
            found.append((image_ref(message.id, ordinal), saved, index >= cold_from))
    older = found[: len(found) - keep] if keep else found
    cleared = [(ref, saved) for ref, saved, cold in older if saved > 0 and cold]
    return tuple(ref for ref, _ in cleared), sum(saved for _, saved in cleared)


def is_clearable(result: ToolResult, compactable: Collection[str]) -> bool:
    """Successful, compactable, not cleared yet, not a note, and larger than the sentinel:
    only such results fill the keep slots."""
    return (
        not result.is_error
        and not result.cleared
        and not is_cleared_text(result.content)
        and is_compactable(result.name, compactable)
        and result.name != NOTE_TOOL
        and _clear_saving(result) > 0
    )


def is_compactable(name: str, compactable: Collection[str]) -> bool:
    """Whether tool ``name`` is in ``compactable``, where an entry ending in ``*`` names every
    tool starting so (``mcp__github__*``: all tools of one MCP server)."""
    if name in compactable:
        return True
    return any(entry.endswith("*") and name.startswith(entry[:-1]) for entry in compactable)


def _clear_saving(result: ToolResult) -> int:
    """Estimated tokens saved by replacing ``result``'s content with the sentinel."""
    sentinel = cleared_result_text(result.call_id)
    cleared = ToolResult(result.call_id, result.name, sentinel, result.is_error, True)
    return estimate_part_tokens(result) - estimate_part_tokens(cleared)


def _keep_count(value: int) -> int:
    """``toolResultsNumToKeep`` as a usable count: an integer, at least 0 (0 keeps none)."""
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        return DEFAULT_NUM_TO_KEEP
    return max(0, count)


# --- helpers ---------------------------------------------------------------------------------


def _reached(gap: float, threshold: float) -> bool:
    """True when ``gap`` reaches an enabled threshold (negative or NaN disables)."""
    if math.isnan(threshold) or threshold < 0:
        return False
    return gap >= threshold


def _with_trigger(reason: str, gap: float, threshold: float, what: str) -> str:
    if reason == "idle":
        return f"idle cleanup: gap {_gap_text(gap)} min >= {_threshold_text(threshold)} min, {what}"
    return f"context cleanup ({reason}): {what}"


def _gap_text(gap: float) -> str:
    """Gap minutes with one decimal (65.0); sub-minute gaps keep up to three (0.167)."""
    if gap >= 1 or gap == 0:
        return f"{gap:.1f}"
    text = f"{gap:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _threshold_text(threshold: float) -> str:
    """A threshold without a trailing .0 when integral (60, not 60.0; 0.1 stays 0.1)."""
    if math.isfinite(threshold) and float(threshold).is_integer():
        return str(int(threshold))
    return repr(float(threshold))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
