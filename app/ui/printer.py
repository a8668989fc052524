"""One-shot mode (``lull -p``): run the prompt and print the result as text or JSON.

Nothing here can ask the user anything: actions that need approval are
denied with a result the model sees, so a script never hangs. The result is the kept
answer only (:mod:`lull.ui.print_result`): text of an attempt the engine discarded (a cut
stream, a rolled-back reply) is never part of it. A turn that did not end with an answer
(the output token limit, ``maxTurns``, a guardrail stop, nothing said) is an error: one
line on stderr, ``is_error`` and its ``subtype`` in JSON, exit 1. With ``--max-attempts N``
such a run is tried again in a fresh session with a summary of what failed
(:mod:`lull.engine.loop.attempts`). SIGHUP (the terminal went away) stops the turn and
saves the session (exit 129).

``json`` and ``stream-json`` are Claude Code's shapes (:mod:`lull.ui.headless`); with
``--input-format stream-json`` each user message on stdin is one more turn of the session,
each answered with its own ``result``. A ``/command`` or an ``@path`` in the prompt works as
it does interactively (:mod:`lull.ui.headless.prompt`).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO, assert_never

from lull.context.tool_stats import tool_stats
from lull.engine.calls.approvals import DenyApprover
from lull.engine.loop.agent import Agent
from lull.engine.loop.attempts import AttemptUnavailable
from lull.model.events import (
    ContextEdited,
    Event,
    GuardrailTriggered,
    Notice,
    PromptOffloaded,
    ToolStarted,
)
from lull.model.messages import Image
from lull.model.text import json_text, terminal_text
from lull.runtime import RunOptions, Runtime, SwitchError
from lull.ui.formats import InputFormat, OutputFormat
from lull.ui.headless.clock import TurnClock
from lull.ui.headless.costs import usage_cost
from lull.ui.headless.prompt import prepare
from lull.ui.headless.schema import (
    CLAUDE_MODES,
    McpStatus,
    init_message,
    model_usage_entry,
    result_message,
)
from lull.ui.headless.stream import ClaudeStream
from lull.ui.headless.stream_input import InputLineError, UserInput, read_messages
from lull.ui.print_result import Limits, RunResult, Verdict
from lull.ui.shared.hangup import HANGUP_EXIT, HangupWatch
from lull.ui.shared.startup import open_runtime

__all__ = ["Limits", "RunResult", "Verdict", "init_line", "result_line", "run_print"]

NO_TTY_DENIAL = (
    "denied: lull is running non-interactively (-p) and cannot ask the user; re-run with "
    "--permission-mode acceptEdits or bypassPermissions (--approval-mode auto-edit or yolo), "
    "or allow this call with --allowedTools RULE"
)


HANGUP_MESSAGE = "the terminal went away (SIGHUP); the turn was stopped and the session saved"


def run_print(
    options: RunOptions,
    prompt: str,
    output_format: OutputFormat,
    input_format: InputFormat = "text",
    stdin: TextIO | None = None,
    *,
    verbose: bool = False,
    partial: bool = False,
) -> int:
    """Run ``prompt`` (as up to ``guardrails.maxAttempts`` attempts), then with
    ``--input-format stream-json`` each user message read from ``stdin`` as a turn of the same
    session; returns the exit code (0 ok, 1 error, 2 usage, 129 the terminal went away).
    ``verbose`` (text output) says each tool call on stderr as it starts; ``partial``
    (stream-json) adds the raw stream events (``--include-partial-messages``)."""
    runtime, code = open_runtime(options)
    if runtime is None:
        return code
    runtime.agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    run = _Run(runtime, output_format, verbose=verbose, partial=partial)
    messages = read_messages(stdin or sys.stdin) if input_format == "stream-json" else None
    unsaved: str | None = None
    try:
        asyncio.run(run.session(prompt, messages))
    except KeyboardInterrupt:
        run.interrupted("interrupted by the user")
    finally:
        unsaved = runtime.close()
    if run.hung_up:
        return HANGUP_EXIT
    if unsaved:
        _say(f"error: {unsaved}")
        return run.code or 1
    return run.code


def _fresh_agent(runtime: Runtime) -> Agent:
    """The agent of a fresh attempt: a new session (the failed one is saved and closed)."""
    try:
        runtime.new_session()
    except SwitchError as error:
        raise AttemptUnavailable(str(error)) from error
    agent = runtime.agent
    agent.set_approver(DenyApprover(NO_TTY_DENIAL))
    return agent


class _Run:
    """One ``-p`` run: its turns, what each printed, the exit code so far."""

    def __init__(
        self,
        runtime: Runtime,
        output_format: OutputFormat,
        *,
        verbose: bool = False,
        partial: bool = False,
    ) -> None:
        self.runtime = runtime
        self.output_format = output_format
        self.verbose = verbose
        settings = runtime.settings
        self.limits = Limits(settings.max_turns, runtime.agent.config.max_output_tokens)
        self.local = runtime.local_endpoint()
        self.stream = ClaudeStream(
            runtime.agent.session.id,
            runtime.provider_config.model,
            runtime.workspace,
            settings.pricing,
            local=self.local,
            partial=partial,
        )
        self.code = 0
        self.hung_up = False
        self.result: RunResult | None = None  # the turn running now, until it is reported
        self.clock = TurnClock()

    async def session(
        self, prompt: str, messages: Iterator[UserInput | InputLineError] | None
    ) -> None:
        """Start the tools, say ``init``, run the prompt and then each stdin message."""
        self.runtime.start_tools(wait=True)
        try:
            if self.output_format == "stream-json":
                await self._init()
            if prompt.strip():
                await self.turn(prompt)
            while messages is not None and not self.hung_up:
                item = await asyncio.to_thread(next, messages, None)
                if item is None:
                    break
                if isinstance(item, InputLineError):
                    _say(f"error: {item}; the line was skipped")
                    self.code = self.code or 1
                    continue
                await self.turn(item.text, item.images)
        finally:
            for notice in await self.runtime.end_session("other"):
                _say(f"{notice.level}: {notice.text}")
            await self.runtime.stop_tools()

    async def _init(self) -> None:
        await self.runtime.agent.tools.settle()  # the MCP servers' tools are listed too
        _emit(init_line(self.runtime))

    async def turn(self, text: str, images: Sequence[Image] = ()) -> None:
        """Run one prompt as a turn (or a command) and report its result."""
        runtime = self.runtime
        self.result = result = RunResult(
            runtime.settings.pricing, local=self.local, limits=self.limits
        )
        self.clock = TurnClock()
        prepared = prepare(runtime, text, lambda: _fresh_agent(runtime), images)
        for event in prepared.shown:
            self._show(event)
        if prepared.error is not None:
            result.error, result.error_kind = prepared.error, "command"
        elif prepared.events is None:
            result.command_output = "\n".join(prepared.lines)
        else:
            for line in prepared.lines:
                self._show(Notice("info", line))
            self.hung_up = await _drive(prepared.events, self)
            if self.hung_up:
                result.error, result.error_kind = HANGUP_MESSAGE, "cancelled"
        self.report()

    def take(self, event: Event) -> None:
        """Fold one event of the running turn and print what the output format shows."""
        assert self.result is not None
        self.result.take(event)
        self.clock.take(event)
        self._show(event)

    def _show(self, event: Event) -> None:
        match self.output_format:
            case "stream-json":
                for line in self.stream.take(event):
                    _emit(line)
            case "text":
                if isinstance(event, Notice | GuardrailTriggered | PromptOffloaded):
                    _say(event.text)
                elif isinstance(event, ContextEdited):
                    _say(event.description)
                elif isinstance(event, ToolStarted) and self.verbose:
                    _say(f"{event.call.name}: {event.summary}")
            case "json":  # stdout is the result alone; what went wrong is said on stderr
                warning = isinstance(event, Notice) and event.level != "info"
                if isinstance(event, PromptOffloaded) or (isinstance(event, Notice) and warning):
                    _say(event.text)
            case _:
                assert_never(self.output_format)

    def interrupted(self, message: str) -> None:
        """The user stopped the run (Ctrl-C): the running turn's result says so."""
        if self.result is None:
            return
        self.result.error, self.result.error_kind = message, "cancelled"
        self.report()

    def report(self) -> None:
        """Print the running turn's result (once) and fold its exit code in."""
        result = self.result
        if result is None:
            return
        self.result = None
        session = self.runtime.agent.session
        tools = {
            stats.name: stats.to_dict()
            for stats in tool_stats(session.transcript, session.edits, session.record.tool_seconds)
        }
        code = _report(
            self.output_format, result, session.id, self.clock, self.runtime.workspace, tools
        )
        self.code = self.code or code


def init_line(runtime: Runtime) -> dict[str, Any]:
    """The ``system``/``init`` line of ``runtime``'s session."""
    from lull.commands.registry import command_entries
    from lull.version import version

    statuses = runtime.mcp.statuses() if runtime.mcp is not None else []
    return init_message(
        session_id=runtime.agent.session.id,
        cwd=str(runtime.workspace),
        tools=[spec.name for spec in runtime.agent.tools.specs()],
        mcp_servers=[(s.name, MCP_STATUS.get(s.state, "failed")) for s in statuses],
        model=runtime.provider_config.model,
        permission_mode=CLAUDE_MODES[runtime.agent.tools.mode],
        slash_commands=[name for name, _ in command_entries(runtime.workspace)],
        lull_version=version(),
        agents=_tool_choices(runtime, "task", "subagent_type"),
        skills=_tool_choices(runtime, "skill", "skill"),
    )


def _tool_choices(runtime: Runtime, tool: str, argument: str) -> list[str]:
    """The names a tool's argument may take (the sub-agents of ``task``, the skills of
    ``skill``); empty when the tool is not offered."""
    found = runtime.agent.tools.registry.get(tool)
    if found is None:
        return []
    choices = found.parameters.get("properties", {}).get(argument, {}).get("enum", [])
    return [str(choice) for choice in choices]


MCP_STATUS: dict[str, McpStatus] = {
    "ready": "connected",
    "failed": "failed",
    "starting": "pending",
    "stopped": "pending",
    "disabled": "disabled",
    "needs trust": "pending",
}
"""An MCP server's state in lull's words, as Claude Code's ``init`` names it."""


async def _drive(events: AsyncIterator[Event], run: _Run) -> bool:
    """Run the turn, printing as it goes; True if SIGHUP stopped it. The first request waits
    for the MCP servers started with the run."""
    task = asyncio.create_task(_consume(events, run))

    def stop_turn() -> None:
        task.cancel()  # the engine gives a running tool call its result; the session is saved

    watch = HangupWatch(stop_turn, poll_seconds=None)
    watch.start()
    try:
        await task
    except asyncio.CancelledError:
        if not watch.fired:
            raise
    finally:
        watch.stop()
    return watch.fired


async def _consume(events: AsyncIterator[Event], run: _Run) -> None:
    async for event in events:
        run.take(event)


def _report(
    output_format: OutputFormat,
    result: RunResult,
    session_id: str,
    clock: TurnClock,
    workspace: Path,
    tools: dict[str, Any] | None = None,
) -> int:
    verdict = result.verdict()
    text = result.answer
    if output_format == "text":
        if text:  # plain text, to a terminal or a pipe (one that may end in a terminal)
            print(terminal_text(text))
    else:
        _emit(result_line(result, verdict, session_id, clock, workspace, tools or {}))
    if verdict.error is None:
        return 0
    _say(f"error: {verdict.error}")
    return 1


def result_line(
    result: RunResult,
    verdict: Verdict,
    session_id: str,
    clock: TurnClock,
    workspace: Path,
    tools: dict[str, Any],
) -> dict[str, Any]:
    """The ``result`` object: Claude Code's fields, then lull's own."""
    cost = None if result.cost_usd is None else round(result.cost_usd, 6)
    payload = result_message(
        lull_subtype=verdict.subtype,
        error=verdict.error,
        duration_ms=clock.duration_ms(),
        duration_api_ms=clock.api_ms(),
        num_turns=clock.requests,
        result=result.answer,
        session_id=session_id,
        total_cost_usd=cost,
        usage=result.usage,
        stop_reason=result.stop_reason,
        denied=result.denied,
        workspace=workspace,
        model_usage={
            model: model_usage_entry(
                usage,
                _rounded(usage_cost(usage, model, result.pricing, local=result.local), 6),
                clock.windows.get(model, 0),
            )
            for model, usage in clock.models.items()
        },
    )
    payload.update(
        {
            "lull_usage": result.usage.to_dict(),
            "usage_reported": result.usage.reported,
            "cache_hit_ratio": _rounded(result.usage.cache_hit_ratio),
            "cost_usd": cost,
            "num_requests": result.num_requests,
            "context_edits": result.context_edits,
            "guardrails": result.guardrail_counts(),
            "attempts": result.attempts_json(),
            "tools": tools,
            "prompt_offloaded": result.offloaded,
        }
    )
    return payload


def _say(text: str) -> None:
    """One ``lull: …`` line on stderr, control characters shown (:func:`terminal_text`)."""
    print(f"lull: {terminal_text(text)}", file=sys.stderr)


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _emit(payload: dict[str, Any], out: TextIO | None = None) -> None:
    stream = out or sys.stdout
    stream.write(json_text(payload) + "\n")
    stream.flush()
