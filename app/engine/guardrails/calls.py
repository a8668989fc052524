"""The tool calls of one user turn: duplicates, doom loops and failures in a row.

- **Duplicates.** A read-only call whose fingerprint (:meth:`lull.tools.base.Tool.fingerprint`:
  read_file path + range, grep_search pattern + path + glob, glob pattern + path, web_fetch
  URL) matches one that already ran successfully in this user turn, with no write or shell
  command since, is not run again: the model gets a short pointer to the earlier call.
- **Doom loops.** The same call (same tool, same fingerprint) several times in a row, any
  tool, stops the loop unless the user says to go on.
- **Failures.** Failed tool calls in a row are counted; too many stop the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lull.context.repeats import duplicate_call_pointer
from lull.engine.guardrails.policy import GuardrailPolicy
from lull.model.approvals import Approver
from lull.model.events import GuardrailTriggered
from lull.model.messages import ToolCall, ToolResult
from lull.tools.registry import ToolRegistry

log = logging.getLogger("lull.guardrails")


@dataclass(frozen=True, slots=True)
class EarlierCall:
    """A call that already ran in this turn: its id and the step (model reply) it was in."""

    call_id: str
    step: int


@dataclass(frozen=True, slots=True)
class Loop:
    """The call found repeating and how many times in a row it has now been made."""

    call: ToolCall
    repeats: int


class CallLedger:
    """What the calls of one user turn did, for the duplicate, loop and failure guards."""

    def __init__(self, registry: ToolRegistry, policy: GuardrailPolicy) -> None:
        self.registry = registry
        self.policy = policy
        self._ran: dict[str, EarlierCall] = {}
        self._last: str | None = None
        self._repeats = 0
        self._loops_allowed = False
        self._failures = 0
        self._last_failure = ""

    # --- fingerprints -----------------------------------------------------------------------

    def fingerprint(self, call: ToolCall, arguments: Any | None = None) -> str:
        """What identifies ``call`` (with its repaired ``arguments`` when given)."""
        args = call.arguments if arguments is None else arguments
        tool = self.registry.get(call.name)
        if tool is None or not isinstance(args, Mapping):
            return f"{call.name}:{sorted(map(str, call.arguments.items()))}"
        return tool.fingerprint(args)

    # --- duplicates ---------------------------------------------------------------------------

    def duplicate(self, call: ToolCall, arguments: Any) -> EarlierCall | None:
        """The earlier call of this turn ``call`` repeats, when it need not run again."""
        tool = self.registry.get(call.name)
        if not self.policy.duplicate_calls or tool is None or not tool.read_only:
            return None
        earlier = self._ran.get(self.fingerprint(call, arguments))
        if earlier is not None:
            log.info(
                "%s repeats %s (step %d): pointed to it", call.id, earlier.call_id, earlier.step
            )
        return earlier

    def ran(self, call: ToolCall, arguments: Any, result: ToolResult, step: int) -> None:
        """Note a call's result: a successful read-only call can be pointed to later; a
        call that may change something (a write, a shell command) makes every earlier
        result possibly stale; a failure counts towards the failures in a row."""
        tool = self.registry.get(call.name)
        if tool is None or not tool.read_only:
            self._ran.clear()
        elif not result.is_error:
            self._ran.setdefault(self.fingerprint(call, arguments), EarlierCall(call.id, step))
        if result.is_error:
            self._failures += 1
            self._last_failure = result.content
        else:
            self._failures = 0

    # --- loops ---------------------------------------------------------------------------------

    def loop_in(self, calls: Sequence[ToolCall]) -> Loop | None:
        """The call of this batch that makes the same call ``doom_loop_repeats`` times in a
        row (counting the calls before it), or None."""
        if not self.policy.doom_loop or self._loops_allowed:
            return None
        last, repeats = self._last, self._repeats
        for call in calls:
            mark = self.fingerprint(call)
            repeats = repeats + 1 if mark == last else 1
            last = mark
            if repeats >= self.policy.doom_loop_repeats:
                return Loop(call, repeats)
        return None

    def made(self, calls: Sequence[ToolCall]) -> None:
        """Count a batch the model made (after the loop check let it run)."""
        for call in calls:
            mark = self.fingerprint(call)
            self._repeats = self._repeats + 1 if mark == self._last else 1
            self._last = mark

    def go_on(self, *, always: bool = False) -> None:
        """The user said to go on: count repeats afresh (``always``: no more loop checks
        in this turn)."""
        self._last, self._repeats = None, 0
        self._loops_allowed = self._loops_allowed or always

    # --- failures ------------------------------------------------------------------------------

    def failing(self) -> str | None:
        """Why to stop when ``max_tool_failures`` calls in a row failed, else None."""
        if self._failures < self.policy.max_tool_failures:
            return None
        last = " ".join(self._last_failure.split())[:120]
        return (
            f"stopped: the last {self._failures} tool calls failed (the last one: {last}); "
            "send a message to go on"
        )


def duplicate_pointer(earlier: EarlierCall) -> str:
    """The result a duplicate read-only call gets instead of a second copy of the output."""
    return duplicate_call_pointer(earlier.call_id, earlier.step)


def loop_notice(ledger: CallLedger, loop: Loop) -> GuardrailTriggered:
    """The notice that the model is making the same call over and over."""
    call = loop.call
    tool = ledger.registry.get(call.name)
    shown = f"{call.name}({tool.describe_call(call.arguments) if tool else ''})"
    found = f"the model made the same call {loop.repeats} times in a row: {shown}"
    log.warning("%s", found)
    return GuardrailTriggered("doom_loop", found)


async def confirm_loop(ledger: CallLedger, loop: Loop, approver: Approver) -> str | None:
    """Ask whether to go on after the same call ``loop.repeats`` times in a row (the front
    ends show it like an approval; ``-p`` cannot ask and stops). Returns one line saying why
    the loop stops the turn, or None to go on."""
    call = loop.call
    tool = ledger.registry.get(call.name)
    summary = tool.describe_call(call.arguments) if tool else ""
    question = (
        f"{summary} - the same call {loop.repeats} times in a row; allow to go on, deny to "
        "stop the turn"
    ).lstrip(" -")
    approval = await approver.ask(call, question)
    if approval.decision == "deny":
        shown = f"{call.name}({summary})"
        return (
            f"stopped a loop: the model made the same call {loop.repeats} times in a row: {shown}"
        )
    ledger.go_on(always=approval.decision == "allow_always")
    return None
