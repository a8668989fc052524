"""Running the model's tool calls: permission, approval, parallel execution, one result each.

This is the one place that enforces the pairing invariant for a batch: every
call of an assistant message gets exactly one result, appended as a single
user message, whether the call ran, was denied, failed or was cancelled. Images a tool
returned (an MCP screenshot) follow the results in that message when the model accepts
images (:attr:`ToolRunner.images_allowed`); otherwise the result says they were left out.

Arguments are repaired first (:meth:`lull.tools.registry.ToolRegistry.prepare`; what was fixed
is shown with the call), and with a turn's :class:`~lull.engine.guardrails.calls.CallLedger`
a read-only call that repeats an earlier one of the turn gets a pointer instead of running.
Tool sources (MCP servers) add tools in the background; :meth:`ToolRunner.settle` lets
them finish starting where the run waits for them. Tools that report progress while they run
(the ``task`` tool's sub-agents) put events on :attr:`ToolRunner.progress`, which the batch
yields as they come.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import Any

from lull.engine.calls.approvals import DenyApprover
from lull.engine.calls.scope import TurnScope
from lull.engine.checkpoints.files import CheckpointStore, SessionCheckpoints
from lull.engine.checkpoints.shell import GitSnapshot, record_changes, snapshot
from lull.engine.guardrails.calls import CallLedger, duplicate_pointer
from lull.engine.hooks.runner import (
    HookOutcome,
    HookRunner,
    Permission,
    input_from_hook,
    tool_fields,
    tool_response,
)
from lull.engine.sessions.record import SubagentRun
from lull.engine.sessions.session import Session
from lull.model.approvals import ApprovalMode, Approver
from lull.model.events import Event, GuardrailTriggered, Notice, ToolFinished, ToolStarted
from lull.model.hooks import HookEvent
from lull.model.messages import RAW_ARGUMENTS_KEY, Image, Message, Part, ToolCall, ToolResult
from lull.model.provider import ToolSpec, Usage
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput
from lull.tools.files.paths import resolve_in_workspace
from lull.tools.permissions.policy import EDIT_TOOLS, decide, denial_message
from lull.tools.permissions.rules import RuleBook, suggest_rules
from lull.tools.registry import RETRIES_KEY, PreparedCall, ToolRegistry
from lull.tools.sources import ToolSource

CANCELLED = "Cancelled by the user before it finished; no result."
SHELL_TOOL = "run_shell_command"


class ToolRunner:
    """Runs batches of tool calls under an approval mode."""

    def __init__(
        self,
        registry: ToolRegistry,
        context: ToolContext,
        mode: ApprovalMode,
        approver: Approver | None = None,
    ) -> None:
        self.registry = registry
        self.context = context
        self.mode: ApprovalMode = mode
        self.approver: Approver = approver or DenyApprover("no one to ask for approval")
        self.rules = RuleBook()
        self.hooks = HookRunner()
        self._background: set[asyncio.Task[HookOutcome]] = set()
        self.sources: list[ToolSource] = []
        self.images_allowed = False
        self.progress: asyncio.Queue[Event] = asyncio.Queue()
        self.scope: TurnScope | None = None
        """The tools the current turn may use (a custom command's ``allowed-tools``)."""
        self.checkpoints: CheckpointStore | None = None
        self.checkpoint_log: SessionCheckpoints | None = None
        self._owns_turns = True

    def child(self, registry: ToolRegistry, context: ToolContext) -> ToolRunner:
        """A runner for a sub-agent's calls: its own tools, this runner's approval mode,
        approver and permission rules (its answers count here too)."""
        runner = ToolRunner(registry, context, self.mode, self.approver)
        runner.rules = self.rules
        runner.hooks = self.hooks.only(frozenset({"PreToolUse", "PostToolUse", "Notification"}))
        runner.checkpoint_log = self.checkpoint_log  # its edits belong to the parent's turn
        runner._owns_turns = False
        return runner

    def begin_turn(self, session: Session) -> None:
        """A user prompt was added to ``session``: file changes from now on are its turn's."""
        if self.checkpoints is None or not self._owns_turns:
            return
        prompts = [m for m in session.transcript if m.role == "user" and m.origin == "user"]
        self.checkpoint_log = self.checkpoints.session(session.id)
        self.checkpoint_log.begin_turn(len(prompts), prompts[-1].id if prompts else "")

    async def _shell_snapshot(self, calls: list[ToolCall]) -> tuple[str, GitSnapshot] | None:
        """In ``auto-edit`` and ``yolo`` mode, a git work tree's dirty files before the
        batch's shell commands (their changes are recorded as the first one's)."""
        shells = [call for call in calls if call.name == SHELL_TOOL]
        if not shells or self.checkpoint_log is None or self.mode not in ("auto-edit", "yolo"):
            return None
        try:
            found = await snapshot(self.context.workspace, self.checkpoint_log)
        except OSError as error:
            self._checkpoint_failed("the work tree before a shell command", error)
            return None
        return None if found is None else (shells[0].id, found)

    def _capture(self, call: ToolCall, args: Any) -> list[str]:
        """Checkpoint the file a file-changing call is about to change (ids of the changes);
        a checkpoint that cannot be written is said, and the call runs anyway."""
        log = self.checkpoint_log
        if log is None or call.name not in EDIT_TOOLS or not isinstance(args, Mapping):
            return []
        try:
            path = resolve_in_workspace(str(args.get("path", "")), self.context)
        except ToolError:
            return []  # the tool refuses it too
        try:
            return [log.capture(call.id, path)]
        except OSError as error:
            self._checkpoint_failed(f"{path}", error)
            return []

    def _checkpoint_failed(self, what: str, error: OSError) -> None:
        self.progress.put_nowait(
            Notice("warning", f"could not checkpoint {what} ({error}); /undo cannot restore it")
        )

    def specs(self) -> list[ToolSpec]:
        """The tools offered to the model (always all of them: the prefix stays cacheable)."""
        return self.registry.specs()

    async def settle(self) -> None:
        """Let the tool sources finish starting where the run waits for them (``-p``)."""
        for source in self.sources:
            source.start()
            await source.settle()

    async def run_calls(
        self,
        session: Session,
        calls: list[ToolCall],
        ledger: CallLedger | None = None,
        step: int = 0,
    ) -> AsyncIterator[Event]:
        """Run one assistant message's calls and append their results to ``session``
        (``ledger``: the turn's calls so far, for duplicates; ``step``: this reply's number)."""
        results: dict[str, ToolResult] = {}
        images: dict[str, tuple[Image, ...]] = {}
        prepared = {c.id: self.registry.prepare(c.name, c.arguments) for c in calls}
        try:
            cleared: list[tuple[ToolCall, bool]] = []
            for call in calls:
                earlier = ledger.duplicate(call, prepared[call.id].arguments) if ledger else None
                if earlier is not None:
                    result = ToolResult(call.id, call.name, duplicate_pointer(earlier))
                    results[call.id] = result
                    line = f"{call.name}: same call as {earlier.call_id}; pointed to its result"
                    yield GuardrailTriggered("duplicate", line)
                    yield ToolFinished(call, result)
                    continue
                arguments, verdict = await self._check(session, call, prepared[call.id].arguments)
                prepared[call.id] = replace(prepared[call.id], arguments=arguments)
                if isinstance(verdict, bool):
                    cleared.append((call, verdict))
                    continue
                results[call.id] = verdict
                yield ToolFinished(call, verdict)
            async for event in self._run_allowed(session, cleared, results, prepared, images):
                yield event
        finally:
            answers = tuple(
                results.get(c.id) or ToolResult(c.id, c.name, CANCELLED, is_error=True)
                for c in calls
            )
            parts: tuple[Part, ...] = answers
            parts += tuple(image for c in calls for image in images.get(c.id, ()))
            session.add(Message("user", parts, origin="tool"))
            if ledger is not None:
                for call, result in zip(calls, answers, strict=True):
                    ledger.ran(call, prepared[call.id].arguments, result, step)

    async def _check(
        self, session: Session, call: ToolCall, arguments: Any
    ) -> tuple[Any, ToolResult | bool]:
        """The arguments the call will run with (after repair; a PreToolUse hook may change
        them) and the denial result the model will see, or whether it may run *approved*
        (True: the call had an approval need, and the user or the approval mode allowed it)."""
        raw = arguments.get(RAW_ARGUMENTS_KEY) if isinstance(arguments, Mapping) else None
        if isinstance(raw, str) and len(arguments) == 1:
            message = (
                f"{call.name}: the arguments were not valid JSON, so the call did not run; "
                f"send a JSON object (received: {raw[:200]!r})"
            )
            return arguments, ToolResult(call.id, call.name, message, True)
        tool = self.registry.get(call.name)
        if tool is None or not isinstance(arguments, Mapping):
            return arguments, False  # the registry answers unknown tools and odd arguments
        call = replace(call, arguments=dict(arguments))
        if self.scope is not None and not self.scope.permits(call):
            return arguments, ToolResult(call.id, call.name, self.scope.refusal(call), True)
        fields = tool_fields(call, self.context)
        hooked = await self.hook("PreToolUse", session, fields, call.name)
        if hooked.blocked:
            message = f"{call.name} was not run: a PreToolUse hook blocked it: {hooked.reason}"
            return arguments, ToolResult(call.id, call.name, message, True)
        if hooked.updated_input is not None:
            call = replace(call, arguments=input_from_hook(hooked.updated_input, call.arguments))
        return call.arguments, await self._permission(session, call, tool, hooked.permission)

    async def _permission(
        self, session: Session, call: ToolCall, tool: Tool, hook: Permission | None
    ) -> ToolResult | bool:
        """Saved rules, a hook's decision and the approval mode; then the user, if asked."""
        need = await tool.approval_need(call.arguments, self.context)
        rule = self.rules.match(tool, call.arguments, self.context)
        verdict = decide(tool, self.mode, need, rule)
        if hook is not None and verdict != "deny" and (rule is None or rule.effect == "allow"):
            verdict = hook if hook != "deny" else verdict  # a hook's deny blocked it already
        if verdict == "ask" and rule is None and self.scope is not None:
            verdict = "allow" if self.scope.preapproves(call) else verdict  # never past a rule
        if verdict == "allow" or (
            verdict == "ask" and rule is None and self.rules.allowed_exactly(tool, call.arguments)
        ):
            return need is not None
        if verdict == "deny":
            message = denial_message(tool, self.mode, None, need, rule)
            return ToolResult(call.id, call.name, message, True)
        summary = tool.describe_call(call.arguments)
        if need is not None:
            summary = f"{summary} ({need.reason})"
        if rule is not None:
            summary = f"{summary} (asked by the {rule.rule.described()})"
        rules = suggest_rules(tool, call.arguments, need)
        self._notify(session, f"lull needs your permission to use {call.name}")
        approval = await self.approver.ask(call, summary, rules)
        if approval.decision == "allow_always":
            for line in self.rules.remember(tool, call.arguments, rules, approval.remember):
                self.progress.put_nowait(Notice("info", line))
        if approval.decision in ("allow", "allow_always"):
            return need is not None
        message = denial_message(tool, self.mode, approval.reason, need, rule)
        return ToolResult(call.id, call.name, message, True)

    # --- hooks ---------------------------------------------------------------------------

    async def hook(
        self, event: HookEvent, session: Session, fields: Mapping[str, Any], target: str = ""
    ) -> HookOutcome:
        """Run ``event``'s hooks for ``session`` (their notices go to :attr:`progress`)."""
        outcome = await self.hooks.run(
            event,
            fields,
            target=target,
            session_id=session.id,
            transcript=session.path,
            mode=self.mode,
        )
        for notice in outcome.notices:
            self.progress.put_nowait(notice)
        return outcome

    def _notify(self, session: Session, message: str) -> None:
        """Run the Notification hooks in the background (the question does not wait)."""
        if not self.hooks.matching("Notification", "permission_prompt"):
            return
        fields = {"message": message, "notification_type": "permission_prompt"}
        task = asyncio.create_task(self.hook("Notification", session, fields, "permission_prompt"))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def drain_background(self) -> None:
        """Wait for the Notification hooks still running (before lull exits)."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def _post_tool_use(
        self, session: Session, call: ToolCall, output: ToolOutput
    ) -> ToolOutput:
        """PostToolUse hooks: a block or added context is appended to what the model sees."""
        if not self.hooks.matching("PostToolUse", call.name):
            return output
        fields = {**tool_fields(call, self.context), "tool_response": tool_response(output)}
        hooked = await self.hook("PostToolUse", session, fields, call.name)
        notes = [f"[PostToolUse hook: {hooked.reason}]"] if hooked.blocked else []
        notes += [f"[PostToolUse hook context: {text}]" for text in hooked.context]
        if not notes:
            return output
        return replace(output, content="\n".join([output.content, *notes]))

    async def _run_allowed(
        self,
        session: Session,
        calls: list[tuple[ToolCall, bool]],
        results: dict[str, ToolResult],
        prepared: Mapping[str, PreparedCall],
        images: dict[str, tuple[Image, ...]],
    ) -> AsyncIterator[Event]:
        tasks: dict[asyncio.Task[ToolOutput], ToolCall] = {}
        captured: dict[str, list[str]] = {}
        shell = await self._shell_snapshot([call for call, _ in calls])
        for call, approved in calls:
            ready = prepared[call.id]
            args = ready.arguments
            summary = ""
            if ready.tool is not None and isinstance(args, Mapping):
                summary = ready.tool.describe_call(args)
            yield ToolStarted(call, summary, ready.repairs)
            ctx = replace(self.context, call_id=call.id, approved=approved)
            captured[call.id] = self._capture(call, args)
            task = asyncio.create_task(self._execute(call.name, args, ctx))
            tasks[task] = call
        waiter: asyncio.Task[Event] | None = None
        try:
            pending: set[asyncio.Task[ToolOutput]] = set(tasks)
            while pending:
                waiter = waiter or asyncio.create_task(self.progress.get())
                done, _ = await asyncio.wait(
                    {*pending, waiter}, return_when=asyncio.FIRST_COMPLETED
                )
                if waiter in done:
                    yield waiter.result()
                    waiter = None
                for task in pending & done:
                    pending.discard(task)
                    call = tasks[task]
                    used = prepared[call.id].arguments
                    ran = replace(call, arguments=dict(used)) if isinstance(used, Mapping) else call
                    output = await self._post_tool_use(session, ran, task.result())
                    _record_usage(session, call, output)
                    for event in self._finished(call, output, results, images):
                        yield event
            if shell is not None and self.checkpoint_log is not None:
                try:
                    await record_changes(shell[1], self.checkpoint_log, shell[0])
                except OSError as error:
                    self._checkpoint_failed("the shell command's changes", error)
            while not self.progress.empty():
                yield self.progress.get_nowait()
        finally:
            if waiter is not None:
                waiter.cancel()
            for task in tasks:
                if not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.checkpoint_log is not None:
                for change in (c for ids in captured.values() for c in ids):
                    with contextlib.suppress(OSError):  # unfinished: a restore asks to force
                        self.checkpoint_log.finish(change)  # what the file holds now

    def _finished(
        self,
        call: ToolCall,
        output: ToolOutput,
        results: dict[str, ToolResult],
        images: dict[str, tuple[Image, ...]],
    ) -> list[Event]:
        """Keep a finished call's result (and images); the events that say so."""
        content = output.content + self._image_note(output)
        result = ToolResult(call.id, call.name, content, output.is_error)
        results[call.id] = result
        if output.images and self.images_allowed:
            images[call.id] = output.images
        events: list[Event] = [ToolFinished(call, result, output.display)]
        if retries := output.metadata.get(RETRIES_KEY):
            line = f"{call.name}: tried again {retries} time(s) after a transient failure"
            events.append(GuardrailTriggered("tool_retry", line))
        return events

    def _image_note(self, output: ToolOutput) -> str:
        """What the result says about images the model will not see."""
        if not output.images or self.images_allowed:
            return ""
        count = len(output.images)
        return f"\n[{count} image(s) left out: the current model does not accept images]"

    async def _execute(self, name: str, args: Any, ctx: ToolContext) -> ToolOutput:
        return await self.registry.execute(name, args, ctx)


def _record_usage(session: Session, call: ToolCall, output: ToolOutput) -> None:
    """A tool that made a model request of its own (a server-side web search) reports its
    usage in ``metadata``; it counts in the session's cost like a sub-agent's."""
    usage = output.metadata.get("usage")
    if isinstance(usage, Usage):
        model = str(output.metadata.get("model") or "")
        session.record_subagent(SubagentRun(call.id, "", call.name, {model: usage}))
