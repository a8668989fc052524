"""Running the model's tool calls: one reply's calls, each to exactly one result.

This is the one place that enforces the pairing invariant for a batch: every call of an
assistant message gets exactly one result, appended as a single user message, whether the
call ran, was denied, failed or was cancelled. Images a tool returned (an MCP screenshot)
follow the results in that message when the model accepts images
(:attr:`ToolRunner.images_allowed`); otherwise the result says they were left out.

:class:`ToolRunner` holds what the calls run under (the tools, the approval mode and approver,
the permission rules, the hooks, the turn's scope) and puts three parts together: the gate
(``gate.py``: repair, duplicates, hooks, rules, approval), the executor (``executor.py``:
cleared calls side by side, cancellation) and the checkpoint recorder (``checkpointing.py``).
Tool sources (MCP servers) add tools in the background; :meth:`ToolRunner.settle` lets them
finish starting where the run waits for them. Tools that report progress while they run (the
``task`` tool's sub-agents) put events on :attr:`ToolRunner.progress`, which the batch yields
as they come.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import Any

from lull.engine.calls.approvals import DenyApprover
from lull.engine.calls.checkpointing import CheckpointRecorder
from lull.engine.calls.executor import execute
from lull.engine.calls.gate import Admission, admit
from lull.engine.calls.repeats import RepeatedResults
from lull.engine.calls.scope import TurnScope
from lull.engine.checkpoints.files import CheckpointStore, SessionCheckpoints
from lull.engine.guardrails.calls import CallLedger
from lull.engine.hooks.runner import HookOutcome, HookRunner, tool_fields, tool_response
from lull.engine.sessions.session import CANCELLED_RESULT, Session
from lull.model.approvals import ApprovalMode, Approver
from lull.model.events import Event
from lull.model.hooks import HookEvent
from lull.model.messages import Image, Message, Part, ToolCall, ToolResult
from lull.model.provider import ToolSpec
from lull.tools.base import ToolContext, ToolOutput
from lull.tools.permissions.rules import RuleBook
from lull.tools.registry import ToolRegistry
from lull.tools.sources import ToolSource

TOOL_EVENTS: frozenset[HookEvent] = frozenset(
    {"PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Notification"}
)
"""The hook events a sub-agent's calls run (its turn's own events are its parent's)."""


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
        self.recorder = CheckpointRecorder(self.progress.put_nowait)
        self.repeats = RepeatedResults()
        """Repeated outputs the model still has become pointers (``context.repeatPointers``)."""

    @property
    def checkpoints(self) -> CheckpointStore | None:
        """Where file checkpoints are kept (None: off)."""
        return self.recorder.store

    @checkpoints.setter
    def checkpoints(self, store: CheckpointStore | None) -> None:
        self.recorder.store = store

    @property
    def checkpoint_log(self) -> SessionCheckpoints | None:
        """The current turn's checkpoint record."""
        return self.recorder.log

    def child(self, registry: ToolRegistry, context: ToolContext) -> ToolRunner:
        """A runner for a sub-agent's calls: its own tools, this runner's approval mode,
        approver and permission rules (its answers count here too)."""
        runner = ToolRunner(registry, context, self.mode, self.approver)
        runner.rules = self.rules
        runner.hooks = self.hooks.only(TOOL_EVENTS)
        runner.recorder = self.recorder.child(runner.progress.put_nowait)
        runner.repeats = RepeatedResults(self.repeats.enabled)
        return runner

    def begin_turn(self, session: Session) -> None:
        """A user prompt was added to ``session``: file changes from now on are its turn's,
        and the tool sources apply what they held back for a turn's start."""
        self.recorder.begin_turn(session)
        for source in self.sources:
            source.begin_turn()

    def specs(self) -> list[ToolSpec]:
        """The tools offered to the model (always all of them: the prefix stays cacheable)."""
        return self.registry.specs()

    def request_sent(self) -> None:
        """A model request is out (its answer has begun): the tool sources may start what
        they held back so as not to slow it down."""
        for source in self.sources:
            source.request_sent()

    async def settle(self) -> None:
        """Let the tool sources finish starting where the run waits for them (``-p``); what
        they have to say (a server that did not start) goes to :attr:`progress`."""
        for source in self.sources:
            source.start()
            await source.settle()
            for notice in source.take_notices():
                self.progress.put_nowait(notice)

    async def run_calls(
        self,
        session: Session,
        calls: list[ToolCall],
        ledger: CallLedger | None = None,
        step: int = 0,
    ) -> AsyncIterator[Event]:
        """Run one assistant message's calls and append their results to ``session``
        (``ledger``: the turn's calls so far, for duplicates; ``step``: this reply's number)."""
        images: dict[str, tuple[Image, ...]] = {}
        admission = Admission.of(self.registry, calls)
        try:
            async for event in admit(self, session, calls, admission, ledger):
                yield event
            async for event in execute(self, session, admission, images):
                yield event
        finally:
            answers = tuple(
                admission.results.get(c.id)
                or ToolResult(c.id, c.name, CANCELLED_RESULT, is_error=True)
                for c in calls
            )
            parts: tuple[Part, ...] = answers
            parts += tuple(image for c in calls for image in images.get(c.id, ()))
            session.add(Message("user", parts, origin="tool"))
            session.record_tool_times(admission.seconds)
            if ledger is not None:
                for call, result in zip(calls, answers, strict=True):
                    ledger.ran(call, admission.arguments(call), result, step)

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

    def notify(self, session: Session, message: str) -> None:
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

    async def post_tool_use(
        self, session: Session, call: ToolCall, output: ToolOutput
    ) -> ToolOutput:
        """PostToolUse hooks (PostToolUseFailure for a failed call, as in Claude Code): a block
        or added context is appended to what the model sees."""
        event: HookEvent = "PostToolUseFailure" if output.is_error else "PostToolUse"
        if not self.hooks.matching(event, call.name):
            return output
        fields = tool_fields(call, self.context)
        if output.is_error:
            fields |= {"error": output.content, "is_interrupt": False}
        else:
            fields["tool_response"] = tool_response(output)
        hooked = await self.hook(event, session, fields, call.name)
        notes = [f"[{event} hook: {hooked.reason}]"] if hooked.blocked else []
        notes += [f"[{event} hook context: {text}]" for text in hooked.context]
        if not notes:
            return output
        return replace(output, content="\n".join([output.content, *notes]))


def _cancelled(call: ToolCall) -> ToolResult:
    """The result of a call that never finished (the batch was cancelled)."""
    return ToolResult(call.id, call.name, CANCELLED_RESULT, is_error=True)
