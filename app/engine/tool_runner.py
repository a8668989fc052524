"""Running the model's tool calls: permission, approval, parallel execution, one result each.

This is the one place that enforces the pairing invariant for a batch: every
call of an assistant message gets exactly one result, appended as a single
user message, whether the call ran, was denied, failed or was cancelled. Images a tool
returned (an MCP screenshot) follow the results in that message when the model accepts
images (:attr:`ToolRunner.images_allowed`); otherwise the result says they were left out.

Arguments are repaired first (:meth:`tools.registry.ToolRegistry.prepare`; what was fixed
is shown with the call), and with a turn's :class:`~app.engine.guardrails.calls.CallLedger`
a read-only call that repeats an earlier one of the turn gets a pointer instead of running.
Tool sources (MCP servers) add tools in the background; :meth:`ToolRunner.settle` lets
them finish starting where the run waits for them. Tools that report progress while they run
(the ``task`` tool's sub-agents) put events on :attr:`ToolRunner.progress`, which the batch
yields as they come.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import Any

from app.engine.approvals import DenyApprover
from app.engine.guardrails.calls import CallLedger, duplicate_pointer
from app.engine.session import Session
from app.model.approvals import ApprovalMode, Approver
from app.model.events import Event, GuardrailTriggered, ToolFinished, ToolStarted
from app.model.messages import RAW_ARGUMENTS_KEY, Image, Message, Part, ToolCall, ToolResult
from app.model.provider import ToolSpec
from tools.base import ToolContext, ToolOutput
from tools.permissions import decide, denial_message
from tools.registry import RETRIES_KEY, PreparedCall, ToolRegistry
from tools.sources import ToolSource

CANCELLED = "Cancelled by the user before it finished; no result."


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
        self.always_allowed: set[str] = set()
        self.sources: list[ToolSource] = []
        self.images_allowed = False
        self.progress: asyncio.Queue[Event] = asyncio.Queue()

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
                verdict = await self._check(call, prepared[call.id].arguments)
                if isinstance(verdict, bool):
                    cleared.append((call, verdict))
                    continue
                results[call.id] = verdict
                yield ToolFinished(call, verdict)
            async for event in self._run_allowed(cleared, results, prepared, images):
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

    async def _check(self, call: ToolCall, arguments: Any) -> ToolResult | bool:
        """The denial result the model will see, or whether the call may run *approved*
        (True: the call had an approval need, and the user or the approval mode allowed it).
        ``arguments`` are the call's arguments after repair."""
        raw = arguments.get(RAW_ARGUMENTS_KEY) if isinstance(arguments, Mapping) else None
        if isinstance(raw, str) and len(arguments) == 1:
            message = (
                f"{call.name}: the arguments were not valid JSON, so the call did not run; "
                f"send a JSON object (received: {raw[:200]!r})"
            )
            return ToolResult(call.id, call.name, message, True)
        tool = self.registry.get(call.name)
        if tool is None or not isinstance(arguments, Mapping):
            return False  # the registry answers unknown tools and odd arguments clearly
        call = replace(call, arguments=arguments)
        need = await tool.approval_need(call.arguments, self.context)
        verdict = decide(tool, self.mode, need)
        scope = need.scope if need is not None else call.name
        if verdict == "allow" or scope in self.always_allowed:
            return need is not None
        if verdict == "deny":
            return ToolResult(call.id, call.name, denial_message(tool, self.mode, None, need), True)
        summary = tool.describe_call(call.arguments)
        if need is not None:
            summary = f"{summary} ({need.reason})"
        approval = await self.approver.ask(call, summary)
        if approval.decision == "allow_always":
            self.always_allowed.add(scope)
        if approval.decision in ("allow", "allow_always"):
            return need is not None
        return ToolResult(
            call.id, call.name, denial_message(tool, self.mode, approval.reason, need), True
        )

    async def _run_allowed(
        self,
        calls: list[tuple[ToolCall, bool]],
        results: dict[str, ToolResult],
        prepared: Mapping[str, PreparedCall],
        images: dict[str, tuple[Image, ...]],
    ) -> AsyncIterator[Event]:
        tasks: dict[asyncio.Task[ToolOutput], ToolCall] = {}
        for call, approved in calls:
            ready = prepared[call.id]
            args = ready.arguments
            summary = ""
            if ready.tool is not None and isinstance(args, Mapping):
                summary = ready.tool.describe_call(args)
            yield ToolStarted(call, summary, ready.repairs)
            ctx = replace(self.context, call_id=call.id, approved=approved)
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
                    output = task.result()
                    content = output.content + self._image_note(output)
                    result = ToolResult(call.id, call.name, content, output.is_error)
                    results[call.id] = result
                    if output.images and self.images_allowed:
                        images[call.id] = output.images
                    yield ToolFinished(call, result, output.display)
                    if retries := output.metadata.get(RETRIES_KEY):
                        line = (
                            f"{call.name}: tried again {retries} time(s) after a transient failure"
                        )
                        yield GuardrailTriggered("tool_retry", line)
            while not self.progress.empty():
                yield self.progress.get_nowait()
        finally:
            if waiter is not None:
                waiter.cancel()
            for task in tasks:
                if not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _image_note(self, output: ToolOutput) -> str:
        """What the result says about images the model will not see."""
        if not output.images or self.images_allowed:
            return ""
        count = len(output.images)
        return f"\n[{count} image(s) left out: the current model does not accept images]"

    async def _execute(self, name: str, args: Any, ctx: ToolContext) -> ToolOutput:
        return await self.registry.execute(name, args, ctx)
