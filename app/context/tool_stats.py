"""Per-tool figures of a session: calls, failures, time, output, and what became of it.

For each tool the model called (MiroThinker's tool monitoring: response time and success
rate per tool, here with what context management did to the outputs):

* ``calls``: its results in the transcript (every call has exactly one; a call lull answered
  without running it, a denial or a duplicate, counts too; a ``!`` command the user ran does
  not);
* ``failures``: error results among them;
* ``seconds``: wall time of the calls that ran (saved per call in the session file);
* ``output_tokens``: estimated tokens of the outputs as the tool gave them (characters / 4);
* ``cleared``: results the model does not see in full now: cleared (idle cleanup, the
  emergency clear), replaced by a light-step pointer, or summarised away (a ``/rewind`` hides
  its calls from every figure here);
* ``recalled``: successful ``recall`` calls that brought one of its outputs back;
* ``pointers``: results that were a pointer to an earlier copy instead of an output (a
  duplicate call of the same turn, a repeated read or query: :mod:`lull.context.repeats`).

Derived from the transcript, the edits and the saved times, so a resumed session shows the
same figures. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lull.context.estimate import estimate_tokens
from lull.context.recall import RECALL_TOOL
from lull.context.repeats import is_pointer
from lull.context.view import build_view, without_rewound
from lull.model.edits import ContextEdit
from lull.model.messages import Message, ToolResult


@dataclass(frozen=True, slots=True)
class ToolStats:
    """The figures of one tool over a session."""

    name: str
    calls: int = 0
    failures: int = 0
    seconds: float = 0.0
    output_tokens: int = 0
    cleared: int = 0
    recalled: int = 0
    pointers: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The figures as the ``-p`` json ``tools`` object holds them (without the name)."""
        return {
            "calls": self.calls,
            "failures": self.failures,
            "seconds": round(self.seconds, 3),
            "output_tokens": self.output_tokens,
            "cleared": self.cleared,
            "recalled": self.recalled,
            "pointers": self.pointers,
        }


def tool_stats(
    transcript: Sequence[Message],
    edits: Sequence[ContextEdit],
    seconds: Mapping[str, float],
) -> list[ToolStats]:
    """The figures of every tool the session's model called, most called first (then by
    name); ``seconds`` is each call's wall time by call id."""
    shown = without_rewound(transcript, edits)
    visible = {
        r.call_id for m in build_view(transcript, edits) for r in m.tool_results if not r.cleared
    }
    not_the_model = {
        c.id
        for m in shown
        if m.role == "assistant" and m.origin == "synthetic"
        for c in m.tool_calls
    }  # a ``!`` command the user ran is recorded as a call, not made by the model
    results = [r for m in shown for r in m.tool_results if r.call_id not in not_the_model]
    owner = {r.call_id: r.name for r in results}
    recalled = _recalled(shown, owner)
    stats: dict[str, ToolStats] = {}
    for result in results:
        before = stats.get(result.name) or ToolStats(result.name)
        stats[result.name] = replace(
            before,
            calls=before.calls + 1,
            failures=before.failures + result.is_error,
            seconds=before.seconds + seconds.get(result.call_id, 0.0),
            output_tokens=before.output_tokens + estimate_tokens(result.content),
            cleared=before.cleared + (result.call_id not in visible),
            recalled=before.recalled + recalled.get(result.call_id, 0),
            pointers=before.pointers + (not result.is_error and is_pointer(result.content)),
        )
    return sorted(stats.values(), key=lambda s: (-s.calls, s.name))


def _recalled(shown: Sequence[Message], owner: Mapping[str, str]) -> dict[str, int]:
    """How often each call's output was brought back by a successful ``recall``."""
    ok = {r.call_id for m in shown for r in m.tool_results if _succeeded(r)}
    counts: dict[str, int] = {}
    for message in shown:
        for call in message.tool_calls:
            wanted = call.arguments.get("id")
            if call.name == RECALL_TOOL and call.id in ok and isinstance(wanted, str):
                wanted = wanted.strip()
                if wanted in owner:
                    counts[wanted] = counts.get(wanted, 0) + 1
    return counts


def _succeeded(result: ToolResult) -> bool:
    return result.name == RECALL_TOOL and not result.is_error
