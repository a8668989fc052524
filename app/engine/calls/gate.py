"""The gate: which of one reply's calls run, with what arguments, and what the rest answer.

In order, for each call: its arguments repaired (:meth:`ToolRegistry.prepare`; the repairs are
shown with the call); a read-only call that repeats an earlier one of the turn answered with a
pointer (the turn's :class:`CallLedger`); arguments that were not JSON refused; a turn's
``allowed-tools`` (:class:`TurnScope`); ``PreToolUse`` hooks (block, or change the input);
then saved rules, a hook's decision and the approval mode; where that asks,
``PermissionRequest`` hooks (allow or deny in the user's place), then the user.
A call that passes is *cleared* (with whether it was approved); any other gets its result
here, and the executor never sees it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from lull.engine.calls.scope import TurnScope
from lull.engine.guardrails.calls import CallLedger, duplicate_pointer
from lull.engine.hooks.runner import HookOutcome, Permission, input_from_hook, tool_fields
from lull.engine.sessions.session import Session
from lull.model.approvals import ApprovalMode, Approver
from lull.model.events import Event, GuardrailTriggered, Notice, ToolFinished
from lull.model.hooks import HookEvent
from lull.model.messages import RAW_ARGUMENTS_KEY, ToolCall, ToolResult
from lull.tools.base import Tool, ToolContext
from lull.tools.permissions.policy import decide, denial_message
from lull.tools.permissions.rules import RuleBook, suggest_rules
from lull.tools.registry import PreparedCall, ToolRegistry

Verdict = ToolResult | bool
"""A refused call's result, or that it may run (True: approved, by the user or the mode)."""


class GateHost(Protocol):
    """What the gate reads as it decides (the tool runner's live settings: the mode, the
    approver and the scope change between turns)."""

    registry: ToolRegistry
    context: ToolContext
    mode: ApprovalMode
    approver: Approver
    rules: RuleBook
    scope: TurnScope | None
    progress: asyncio.Queue[Event]

    async def hook(
        self, event: HookEvent, session: Session, fields: Mapping[str, Any], target: str = ""
    ) -> HookOutcome:
        """Run ``event``'s hooks for ``session``."""
        ...

    def notify(self, session: Session, message: str) -> None:
        """Run the Notification hooks in the background."""
        ...


@dataclass
class Admission:
    """One reply's calls after the gate: each call's prepared arguments, the calls cleared to
    run (with whether they were approved), the results of those that will not run, and (once
    run) the results and wall times of the others."""

    prepared: dict[str, PreparedCall]
    cleared: list[tuple[ToolCall, bool]] = field(default_factory=list)
    results: dict[str, ToolResult] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    """How long each call that ran took (wall time, from its start to its output)."""

    @classmethod
    def of(cls, registry: ToolRegistry, calls: list[ToolCall]) -> Admission:
        """The calls with their arguments repaired, none cleared yet."""
        return cls({c.id: registry.prepare(c.name, c.arguments) for c in calls})

    def arguments(self, call: ToolCall) -> Any:
        """The arguments ``call`` runs (or ran) with."""
        return self.prepared[call.id].arguments


async def admit(
    host: GateHost,
    session: Session,
    calls: list[ToolCall],
    admission: Admission,
    ledger: CallLedger | None,
) -> AsyncIterator[Event]:
    """Decide each call of ``calls`` into ``admission``; the events that say what happened
    to the calls that will not run."""
    for call in calls:
        earlier = ledger.duplicate(call, admission.arguments(call)) if ledger else None
        if earlier is not None:
            result = ToolResult(call.id, call.name, duplicate_pointer(earlier))
            admission.results[call.id] = result
            line = f"{call.name}: same call as {earlier.call_id}; pointed to its result"
            yield GuardrailTriggered("duplicate", line)
            yield ToolFinished(call, result)
            continue
        unparsed = not_json(call, admission.arguments(call))
        if unparsed is not None:
            admission.results[call.id] = unparsed
            yield ToolFinished(call, unparsed)
            continue
        arguments, verdict = await check(host, session, call, admission.arguments(call))
        admission.prepared[call.id] = replace(admission.prepared[call.id], arguments=arguments)
        if isinstance(verdict, bool):
            admission.cleared.append((call, verdict))
            continue
        admission.results[call.id] = verdict
        yield ToolFinished(call, verdict, denied=True)


def not_json(call: ToolCall, arguments: Any) -> ToolResult | None:
    """The refusal of a call whose arguments were not JSON (None: they were)."""
    raw = arguments.get(RAW_ARGUMENTS_KEY) if isinstance(arguments, Mapping) else None
    if not (isinstance(raw, str) and len(arguments) == 1):
        return None
    message = (
        f"{call.name}: the arguments were not valid JSON, so the call did not run; "
        f"send a JSON object (received: {raw[:200]!r})"
    )
    return ToolResult(call.id, call.name, message, True)


async def check(
    host: GateHost, session: Session, call: ToolCall, arguments: Any
) -> tuple[Any, Verdict]:
    """The arguments the call will run with (after repair; a PreToolUse hook may change
    them) and the denial result the model will see (the turn's scope, a hook, a rule, the
    approval mode or the user refused it), or whether it may run *approved* (True: the call
    had an approval need, and the user or the approval mode allowed it)."""
    tool = host.registry.get(call.name)
    if tool is None or not isinstance(arguments, Mapping):
        return arguments, False  # the registry answers unknown tools and odd arguments
    call = replace(call, arguments=dict(arguments))
    if host.scope is not None and not host.scope.permits(call):
        return arguments, ToolResult(call.id, call.name, host.scope.refusal(call), True)
    fields = tool_fields(call, host.context)
    hooked = await host.hook("PreToolUse", session, fields, call.name)
    if hooked.blocked:
        message = f"{call.name} was not run: a PreToolUse hook blocked it: {hooked.reason}"
        return arguments, ToolResult(call.id, call.name, message, True)
    if hooked.updated_input is not None:
        call = replace(call, arguments=input_from_hook(hooked.updated_input, call.arguments))
    return await permission(host, session, call, tool, hooked.permission)


async def permission(
    host: GateHost, session: Session, call: ToolCall, tool: Tool, hook: Permission | None
) -> tuple[Mapping[str, Any], Verdict]:
    """Saved rules, a hook's decision and the approval mode; then ``PermissionRequest``
    hooks, then the user, if asked. The arguments to run with (a ``PermissionRequest`` hook
    that allows may change them) and the verdict."""
    need = await tool.approval_need(call.arguments, host.context)
    rule = host.rules.match(tool, call.arguments, host.context)
    sandboxed = tool.sandboxed_without_asking(call.arguments, host.context)
    verdict = decide(tool, host.mode, need, rule, sandboxed=sandboxed)
    if hook is not None and verdict != "deny" and (rule is None or rule.effect == "allow"):
        verdict = hook if hook != "deny" else verdict  # a hook's deny blocked it already
    if verdict == "ask" and rule is None and host.scope is not None:
        verdict = "allow" if host.scope.preapproves(call) else verdict  # never past a rule
    if verdict == "allow" or (
        verdict == "ask" and rule is None and host.rules.allowed_exactly(tool, call.arguments)
    ):
        return call.arguments, need is not None
    if verdict == "deny":
        message = denial_message(tool, host.mode, None, need, rule)
        return call.arguments, ToolResult(call.id, call.name, message, True)
    fields = tool_fields(call, host.context)
    hooked = await host.hook("PermissionRequest", session, fields, call.name)
    if hooked.behavior == "allow":
        updated = hooked.updated_input
        arguments = input_from_hook(updated, call.arguments) if updated else call.arguments
        changed = host.rules.match(tool, arguments, host.context) if updated else None
        if changed is not None and changed.effect == "deny":  # a deny rule still wins
            message = denial_message(tool, host.mode, None, need, changed)
            return arguments, ToolResult(call.id, call.name, message, True)
        return arguments, need is not None
    if hooked.behavior == "deny":
        why = hooked.reason or "denied by a PermissionRequest hook"
        return call.arguments, ToolResult(
            call.id, call.name, f"{call.name} was not run: {why}", True
        )
    summary = tool.describe_call(call.arguments)
    if need is not None:
        summary = f"{summary} ({need.reason})"
    if rule is not None:
        summary = f"{summary} (asked by the {rule.described()})"
    rules = suggest_rules(tool, call.arguments, need)
    host.notify(session, f"lull needs your permission to use {call.name}")
    approval = await host.approver.ask(call, summary, rules)
    if approval.decision == "allow_always":
        for line in host.rules.remember(tool, call.arguments, rules, approval.remember):
            host.progress.put_nowait(Notice("info", line))
    if approval.decision in ("allow", "allow_always"):
        return call.arguments, need is not None
    message = denial_message(tool, host.mode, approval.reason, need, rule)
    return call.arguments, ToolResult(call.id, call.name, message, True)
