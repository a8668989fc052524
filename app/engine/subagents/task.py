"""Sub-agents: the ``task`` tool hands a self-contained sub-task to a fresh agent.

The sub-agent starts with an empty context, the read-only built-in tools (or the tools its
profile lists), its own ``maxTurns``, and the parent's approval mode and approver (a profile
that lists an editing tool is asked about like the parent). Only its final answer becomes the
tool result, so its exploration never enters the parent's context. Its transcript is a session
of its own (saved, resumable with ``lull --resume ID``, its header naming the parent); the
parent's session records the run and its usage (``/cost`` shows the split). ``SubagentStart``
hooks may add to its prompt; a ``SubagentStop`` hook that blocks sends it back to work with its
reason (at most :data:`MAX_STOP_CONTINUATIONS` times). While it works,
:class:`~lull.model.events.SubagentUpdate` events go to the parent's tool runner, which shows
them nested in the task call's block. Several task calls in one message run in parallel.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import Any

from lull.engine.calls.runner import ToolRunner
from lull.engine.hooks.lifecycle import MAX_STOP_CONTINUATIONS
from lull.engine.hooks.runner import HookOutcome
from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.record import SubagentRun
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from lull.model import defaults
from lull.model.events import (
    RequestFinished,
    SubagentUpdate,
    ToolStarted,
    TurnFailed,
    TurnFinished,
)
from lull.model.hooks import HookEvent
from lull.model.provider import Provider, Usage
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.params import doc, params_schema
from lull.tools.registry import ToolRegistry, default_registry

log = logging.getLogger("lull.subagents")

TASK_TOOL = "task"
GENERAL_AGENT = "general-purpose"
SUBAGENT_PROMPT = """\
You are a sub-agent of lull, a coding assistant. Another agent handed you one self-contained \
task. Work on it with the tools you have, then answer with everything the other agent needs \
in one final message: findings, file paths with line numbers, and what you could not find. \
That final message is all it will see of your work, so make it complete and concise; do not \
ask questions back."""


@dataclass(frozen=True)
class AgentProfile:
    """A kind of sub-agent: its name, what it is for, its system prompt, its tools (None:
    the read-only built-ins), its model (None: the parent's) and where it was defined."""

    name: str
    description: str
    prompt: str = SUBAGENT_PROMPT
    tools: tuple[str, ...] | None = None
    model: str | None = None
    source: str = "built-in"


GENERAL = AgentProfile(
    GENERAL_AGENT,
    "Explores the workspace with read-only tools (read, grep, glob, list) to answer a "
    "question or gather what a change needs, and reports back.",
)


@dataclass(frozen=True)
class SubagentSetup:
    """What every sub-agent of a session shares: where sessions are saved, how to get a
    provider for a model (None: the parent's), the parent's agent configuration, and its
    ``maxTurns``."""

    store: SessionStore | None
    provider_for: Callable[[str | None], Provider]
    config: AgentConfig
    max_turns: int = defaults.SUBAGENT_MAX_TURNS


@dataclass(frozen=True, slots=True)
class TaskParams:
    """The arguments of ``task``; ``subagent_type``'s choices are the tool's profiles."""

    description: str = field(metadata=doc("A short (3-5 word) description of the task."))
    prompt: str = field(metadata=doc("The task, self-contained: the sub-agent sees nothing else."))
    subagent_type: str | None = field(
        default=None, metadata=doc("Which kind of sub-agent runs it.")
    )


class TaskTool(TypedTool[TaskParams]):
    """``task``: run a sub-agent on a sub-task and return only its final answer."""

    name = TASK_TOOL
    params = TaskParams
    read_only = True  # the sub-agent's own tools are approved like the parent's

    def __init__(
        self,
        setup: SubagentSetup,
        runner: Callable[[], ToolRunner],
        parent: Callable[[], Session],
        profiles: Sequence[AgentProfile] = (GENERAL,),
    ) -> None:
        self.setup = setup
        self.runner = runner
        self.parent = parent
        self.profiles = {p.name: p for p in profiles}
        self.description = task_description(list(self.profiles.values()))
        # the kinds of sub-agent are known only now; arguments it does not name are ignored
        self.parameters = params_schema(
            TaskParams, closed=False, enums={"subagent_type": list(self.profiles)}
        )

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """The task's short description."""
        return str(args.get("description") or args.get("subagent_type") or "")

    async def call(self, params: TaskParams, ctx: ToolContext) -> ToolOutput:
        """Run the sub-agent to the end; its final answer is the result."""
        name = params.subagent_type or GENERAL_AGENT
        profile = self.profiles.get(name)
        if profile is None:
            known = ", ".join(self.profiles)
            raise ToolError(f"task: unknown subagent_type {name!r}; choose one of {known}")
        return await Subagent(self, profile, ctx).run(params.description, params.prompt)


class Subagent:
    """One run of one profile for one task call."""

    def __init__(self, task: TaskTool, profile: AgentProfile, ctx: ToolContext) -> None:
        self.task = task
        self.profile = profile
        self.ctx = ctx
        self.parent_runner = task.runner()

    async def run(self, description: str, prompt: str) -> ToolOutput:
        """Drive the child's turn, report its steps, record it; the final answer."""
        setup, profile = self.task.setup, self.profile
        provider = setup.provider_for(profile.model)
        parent = self.task.parent()
        session = Session.create_child(
            setup.store,
            parent,
            self.ctx.call_id,
            profile.name,
            provider=provider.name,
            model=provider.model,
        )
        runner = self.parent_runner.child(
            child_registry(profile.tools, self.parent_runner.registry),
            replace(self.ctx, call_id="", approved=False),
        )
        config = replace(setup.config, system=profile.prompt, max_turns=setup.max_turns)
        agent = Agent(session, provider, runner, config)
        self._emit("started", description or profile.name, session.id)
        answer, failure = "", ""
        try:
            fields = {"agent_id": session.id, "agent_type": profile.name}
            started = await self._hook("SubagentStart", parent, fields)
            if started.context:  # SubagentStart's additionalContext is the sub-agent's
                prompt = "\n\n".join([prompt, *started.context])
            for continuation in range(MAX_STOP_CONTINUATIONS + 1):
                answer, failure = await self._drive(agent, session.id, prompt)
                stop = {
                    **fields,
                    "stop_hook_active": continuation > 0,
                    "agent_transcript_path": str(session.path or ""),
                    "last_assistant_message": answer,
                }
                hooked = await self._hook("SubagentStop", parent, stop)
                if failure or not hooked.blocked or hooked.stop:
                    break
                prompt = f"<subagent-stop-hook>\n{hooked.reason}\n</subagent-stop-hook>"
        finally:
            unsaved = session.close()
            if unsaved:
                log.warning("sub-agent session %s: %s", session.id, unsaved)
            spent = dict(session.usage_by_model)
            parent.record_subagent(SubagentRun(self.ctx.call_id, session.id, profile.name, spent))
        outcome = failure or f"done ({session.record.num_requests} requests)"
        self._emit("finished", outcome, session.id)
        if failure and not answer.strip():
            raise ToolError(f"the {profile.name} sub-agent failed: {failure}")
        return ToolOutput(answer.strip() or "(the sub-agent gave no answer)")

    async def _drive(self, agent: Agent, session_id: str, prompt: str) -> tuple[str, str]:
        """One turn of the sub-agent, its steps reported; its answer and what failed."""
        answer, failure = "", ""
        async for event in agent.run_turn(prompt):
            match event:
                case ToolStarted(call, summary):
                    self._emit("tool", f"{call.name}({summary})", session_id)
                case RequestFinished(usage=usage, model=model):
                    self._emit("request", "", session_id, usage, model)
                case TurnFinished(text, stop):
                    answer = text
                    if stop == "max_turns":
                        failure = f"stopped after {self.task.setup.max_turns} requests (maxTurns)"
                case TurnFailed(message):
                    failure = message
                case _:
                    pass
        return answer, failure

    async def _hook(
        self, event: HookEvent, parent: Session, fields: Mapping[str, Any]
    ) -> HookOutcome:
        """``SubagentStart``/``SubagentStop`` hooks (matched on the agent's type), run as the
        parent session's."""
        return await self.parent_runner.hook(event, parent, fields, self.profile.name)

    def _emit(
        self, step: Any, text: str, session_id: str, usage: Usage | None = None, model: str = ""
    ) -> None:
        update = SubagentUpdate(
            self.ctx.call_id, self.profile.name, step, text, session_id, usage, model
        )
        self.parent_runner.progress.put_nowait(update)


def child_registry(names: tuple[str, ...] | None, parent: Iterable[Tool] = ()) -> ToolRegistry:
    """The sub-agent's tools: the read-only built-ins, or the tools a profile names — built-ins
    by name and the parent's MCP tools by name or pattern (``mcp__github__*``); never ``task``
    itself: sub-agents do not nest."""
    tools = list(default_registry())
    if names is None:
        return ToolRegistry(t for t in tools if t.read_only)
    chosen = [t for t in tools if t.name in names]
    chosen += [
        t
        for t in parent
        if t.name.startswith("mcp__") and any(fnmatchcase(t.name, n) for n in names)
    ]
    return ToolRegistry(chosen)


def task_description(profiles: list[AgentProfile]) -> str:
    """What the model is told about the task tool, with every kind of sub-agent."""
    kinds = "\n".join(f"- {p.name}: {p.description}" for p in profiles)
    return (
        "Hand a self-contained sub-task to a sub-agent that starts with a fresh context and "
        "its own tools, and get back only its final answer: exploration stays out of this "
        "conversation. Use it for searches across many files or questions that need a lot "
        "of reading; give the prompt everything the sub-agent needs. Several task calls in "
        "one message run in parallel.\nKinds of sub-agent (subagent_type):\n" + kinds
    )
