"""The pairing invariant, in one place: every tool call has a unique id and exactly one result
in the user messages right after it, before anything else; every result answers such a call.

Providers reject any history that breaks it (HTTP 400 on every later request), so a loaded
transcript is repaired here (:func:`repair_pairing`), and the live session keeps it with
:func:`unique_call_ids` (on receipt) and ``Session.close_open_calls``. Calls left open at the very
end are not this module's business: the next turn closes them (``Session.close_open_calls``).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lull.model.messages import Message, Part, ToolCall, ToolResult

LOST_RESULT = (
    "No result was saved for this call (that part of the session file was lost); "
    "it may or may not have run."
)


@dataclass
class PairingRepair:
    """What :func:`repair_pairing` changed (call ids), for the user to be told."""

    synthetic: list[str] = field(default_factory=list)
    dropped_results: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    dropped_messages: int = 0

    def describe(self) -> list[str]:
        """One line per kind of change, with counts and the ids concerned."""
        lines: list[str] = []
        if self.synthetic:
            lines.append(
                f"gave {len(self.synthetic)} tool call(s) without a saved result a "
                f"'lost' result ({_ids(self.synthetic)})"
            )
        if self.dropped_results:
            lines.append(
                f"dropped {len(self.dropped_results)} tool result(s) that answer no call "
                f"({_ids(self.dropped_results)})"
            )
        if self.renamed:
            pairs = _ids(f"{old} -> {new}" for old, new in self.renamed)
            lines.append(f"renamed {len(self.renamed)} duplicate tool call id(s) ({pairs})")
        if self.dropped_messages:
            lines.append(f"dropped {self.dropped_messages} empty message(s)")
        return lines


def _ids(ids: Iterable[str], shown: int = 5) -> str:
    items = list(ids)
    more = f", +{len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def fresh_id(call_id: str, used: set[str]) -> str:
    """``call_id`` if unused, else ``call_id`` with the first free ``_N`` suffix (N >= 2)."""
    base = call_id or "call"
    if call_id and call_id not in used:
        return call_id
    number = 2
    while f"{base}_{number}" in used:
        number += 1
    return f"{base}_{number}"


def unique_call_ids(parts: Sequence[Part], used: set[str]) -> tuple[Part, ...]:
    """``parts`` with each tool call's id unique (against ``used`` and each other); the new ids
    are added to ``used``. Parts that need no change are kept as they are."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, ToolCall):
            new = fresh_id(part.id, used)
            used.add(new)
            if new != part.id:
                part = ToolCall(new, part.name, part.arguments)
        out.append(part)
    return tuple(out)


class _Repairer:
    """One pass over a transcript; state is the latest assistant message's open calls."""

    def __init__(self) -> None:
        self.report = PairingRepair()
        self.out: list[Message] = []
        self.used: set[str] = set()
        self.offered: list[tuple[str, ToolCall]] = []  # (id as saved, call as kept), unanswered
        self.owner: Message | None = None  # the assistant message the open calls belong to

    def assistant(self, message: Message) -> None:
        self.close_before(message)
        parts: list[Part] = []
        for part in message.parts:
            if isinstance(part, ToolCall):
                new = fresh_id(part.id, self.used)
                self.used.add(new)
                if new != part.id:
                    self.report.renamed.append((part.id, new))
                    kept = ToolCall(new, part.name, part.arguments)
                    self.offered.append((part.id, kept))
                    parts.append(kept)
                    continue
                self.offered.append((part.id, part))
            parts.append(part)
        self.owner = message
        self.keep(message, parts)

    def user(self, message: Message) -> None:
        parts: list[Part] = []
        for part in message.parts:
            if not isinstance(part, ToolResult):
                if self.offered and parts:
                    parts.extend(self.lost_results())  # results come first in a user turn
                elif self.offered:
                    self.close_before(message)
                self.owner = None
                parts.append(part)
                continue
            index = self.open_call(part.call_id)
            if index < 0:
                self.report.dropped_results.append(part.call_id)
                continue
            _, call = self.offered.pop(index)
            if call.id != part.call_id:
                part = ToolResult(call.id, part.name, part.content, part.is_error, part.cleared)
            parts.append(part)
        self.keep(message, parts)

    def open_call(self, call_id: str) -> int:
        """Where the open call a result with ``call_id`` answers is in ``offered``, or -1."""
        if self.owner is None:
            return -1
        if self.offered and self.offered[0][0] == call_id:  # results usually come in order
            return 0
        return next((i for i, (saved, _) in enumerate(self.offered) if saved == call_id), -1)

    def close_before(self, message: Message) -> None:
        """Before ``message``: a synthetic result message for calls still open."""
        if self.owner is not None and self.offered:
            parts = tuple(self.lost_results())
            owner = self.owner
            synthetic = Message(
                "user", parts, f"{owner.id}_lost", owner.created_at, origin="synthetic"
            )
            self.out.append(synthetic)
        self.owner = None
        self.offered = []

    def lost_results(self) -> list[Part]:
        results: list[Part] = []
        for _, call in self.offered:
            self.report.synthetic.append(call.id)
            results.append(ToolResult(call.id, call.name, LOST_RESULT, is_error=True))
        self.offered = []
        return results

    def keep(self, message: Message, parts: list[Part]) -> None:
        if not parts:
            self.report.dropped_messages += 1
            return
        same = len(parts) == len(message.parts) and all(map(operator.is_, parts, message.parts))
        self.out.append(message if same else message.replace_parts(tuple(parts)))


def repair_pairing(messages: Sequence[Message]) -> tuple[list[Message], PairingRepair]:
    """``messages`` made valid for any provider, and what was changed.

    A call that something other than its results follows gets a synthetic error result
    (:data:`LOST_RESULT`); a result that answers no open call of the assistant message before
    it (an orphan, a duplicate, or one after other content) is dropped; a call id used before
    is renamed (its results follow); a message left empty is dropped. Calls still open at the
    end are left for the next turn to close. An intact transcript comes back unchanged.
    """
    repairer = _Repairer()
    for message in messages:
        if message.role == "assistant":
            repairer.assistant(message)
        else:
            repairer.user(message)
    return repairer.out, repairer.report
