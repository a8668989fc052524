"""The executor: the calls the gate cleared run side by side, each to one result.

Every cleared call starts at once (its file checkpointed first); the events tools report while
they run (a sub-agent's progress, on the host's ``progress`` queue) are yielded as they come,
and each output passes the ``PostToolUse`` hooks before it becomes the call's result. When the
run is cancelled, the calls still running are cancelled and awaited, and every checkpoint
taken is finished, so a file a cancelled edit half-changed can still be restored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import Protocol

from lull.engine.calls.checkpointing import CheckpointRecorder
from lull.engine.calls.gate import Admission
from lull.engine.calls.repeats import RepeatedResults
from lull.engine.sessions.record import SubagentRun
from lull.engine.sessions.session import Session
from lull.model.approvals import ApprovalMode
from lull.model.events import Event, GuardrailTriggered, ToolFinished, ToolStarted
from lull.model.messages import Image, ToolCall, ToolResult
from lull.model.provider import Usage
from lull.tools.base import ToolContext, ToolOutput
from lull.tools.permissions.rules import RuleBook
from lull.tools.registry import RETRIES_KEY, ToolRegistry


class ExecutorHost(Protocol):
    """What the executor runs with (the tool runner)."""

    registry: ToolRegistry
    context: ToolContext
    mode: ApprovalMode
    images_allowed: bool
    progress: asyncio.Queue[Event]
    recorder: CheckpointRecorder
    repeats: RepeatedResults
    rules: RuleBook

    async def post_tool_use(
        self, session: Session, call: ToolCall, output: ToolOutput
    ) -> ToolOutput:
        """The output after the PostToolUse hooks."""
        ...


async def execute(
    host: ExecutorHost,
    session: Session,
    admission: Admission,
    images: dict[str, tuple[Image, ...]],
) -> AsyncIterator[Event]:
    """Run ``admission``'s cleared calls; their results go into ``admission.results`` and
    the images the model may see into ``images``."""
    calls = admission.cleared
    tasks: dict[asyncio.Task[ToolOutput], ToolCall] = {}
    started: dict[str, float] = {}
    captured: list[str] = []
    shell = await host.recorder.before_shell(
        [call for call, _ in calls], host.mode, host.context.workspace
    )
    for call, approved in calls:
        ready = admission.prepared[call.id]
        args = ready.arguments
        summary = ""
        if ready.tool is not None and isinstance(args, Mapping):
            summary = ready.tool.describe_call(args)
        yield ToolStarted(call, summary, ready.repairs)
        guard = host.rules.read_guard(host.context.workspace)
        ctx = replace(host.context, call_id=call.id, approved=approved, read_guard=guard)
        captured += host.recorder.capture(call, args, host.context)
        started[call.id] = time.perf_counter()
        task = asyncio.create_task(host.registry.execute(call.name, args, ctx))
        tasks[task] = call
    waiter: asyncio.Task[Event] | None = None
    try:
        pending: set[asyncio.Task[ToolOutput]] = set(tasks)
        while pending:
            waiter = waiter or asyncio.create_task(host.progress.get())
            done, _ = await asyncio.wait({*pending, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if waiter in done:
                yield waiter.result()
                waiter = None
            for task in pending & done:
                pending.discard(task)
                call = tasks[task]
                admission.seconds[call.id] = time.perf_counter() - started[call.id]
                used = admission.arguments(call)
                ran = replace(call, arguments=dict(used)) if isinstance(used, Mapping) else call
                output = await host.post_tool_use(session, ran, task.result())
                output = host.repeats.check(host.registry, host.context, session, ran, output)
                _record_usage(session, call, output)
                for event in _finished(host.images_allowed, call, output, admission, images):
                    yield event
        await host.recorder.after_shell(shell)
        while not host.progress.empty():
            yield host.progress.get_nowait()
    finally:
        if waiter is not None:
            waiter.cancel()
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        host.recorder.finish(captured)


def _finished(
    images_allowed: bool,
    call: ToolCall,
    output: ToolOutput,
    admission: Admission,
    images: dict[str, tuple[Image, ...]],
) -> list[Event]:
    """Keep a finished call's result (and images); the events that say so."""
    content = output.content + _image_note(images_allowed, output)
    result = ToolResult(call.id, call.name, content, output.is_error)
    admission.results[call.id] = result
    if output.images and images_allowed:
        images[call.id] = output.images
    events: list[Event] = [ToolFinished(call, result, output.display)]
    if retries := output.metadata.get(RETRIES_KEY):
        line = f"{call.name}: tried again {retries} time(s) after a transient failure"
        events.append(GuardrailTriggered("tool_retry", line))
    return events


def _image_note(images_allowed: bool, output: ToolOutput) -> str:
    """What the result says about images the model will not see."""
    if not output.images or images_allowed:
        return ""
    count = len(output.images)
    return f"\n[{count} image(s) left out: the current model does not accept images]"


def _record_usage(session: Session, call: ToolCall, output: ToolOutput) -> None:
    """A tool that made a model request of its own (a server-side web search) reports its
    usage in ``metadata``; it counts in the session's cost like a sub-agent's."""
    usage = output.metadata.get("usage")
    if isinstance(usage, Usage):
        model = str(output.metadata.get("model") or "")
        session.record_subagent(SubagentRun(call.id, "", call.name, {model: usage}))
