"""What a session file holds, in memory: :class:`SessionRecord` (messages, edits, usage,
sub-agent runs, rollbacks, tool-call times) and the records it is made of (:class:`TokenCounts`,
:class:`SubagentRun`). Written by :mod:`lull.engine.sessions.writer`, read by
:mod:`lull.engine.sessions.load`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lull.model.edits import ContextEdit
from lull.model.messages import Message
from lull.model.provider import Usage
from lull.model.rollbacks import RolledBack

FORMAT_VERSION = 1


@dataclass
class SessionRecord:
    """Everything a session file holds, loaded back.

    ``skipped`` lists the line numbers (1-based) that could not be read; ``repairs`` says
    what loading changed so the history is valid again (empty for an intact file).
    ``rollbacks`` are the replies the guardrails rolled back (shown, never sent).
    ``loaded_tools`` are the deferred tools the session loaded (``tool_search``), in the order
    they joined the tool list, so a resume offers the same tools in the same order.
    """

    id: str
    workspace: str
    created_at: float
    provider: str = ""
    model: str = ""
    messages: list[Message] = field(default_factory=list)
    edits: list[ContextEdit] = field(default_factory=list)
    last_response_at: float | None = None
    usage: Usage = field(default_factory=Usage)
    usage_by_model: dict[str, Usage] = field(default_factory=dict)
    last_usage: tuple[Usage, str] | None = None
    calibration: tuple[int, int] | None = None
    num_requests: int = 0
    skipped: list[int] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    environment: str = ""
    forked_from: str = ""
    parent_id: str = ""
    parent_call_id: str = ""
    agent: str = ""
    subagents: list[SubagentRun] = field(default_factory=list)
    subagent_usage_by_model: dict[str, Usage] = field(default_factory=dict)
    rollbacks: list[RolledBack] = field(default_factory=list)
    token_counts: TokenCounts | None = None
    tool_seconds: dict[str, float] = field(default_factory=dict)
    """How long each tool call ran, by call id (wall seconds; calls that did not run have
    none)."""
    loaded_tools: list[str] = field(default_factory=list)

    @property
    def skipped_lines(self) -> int:
        """How many lines of the file could not be read."""
        return len(self.skipped)

    def add_response(self, at: float, usage: Usage, model: str, local_prompt: int = 0) -> None:
        """Count one answered request: the idle clock, the totals and the model's share;
        with ``local_prompt`` (the local token estimate of that prompt) also the newest
        calibration pair (reported prompt tokens, local estimate)."""
        self.last_response_at = at
        self.usage = self.usage + usage
        self.usage_by_model[model] = self.usage_by_model.get(model, Usage()) + usage
        self.last_usage = (usage, model)
        if local_prompt > 0 and usage.reported and usage.prompt_tokens > 0:
            self.calibration = (usage.prompt_tokens, local_prompt)
        self.num_requests += 1

    def add_subagent(self, run: SubagentRun) -> None:
        """Count one finished sub-agent: its session and its usage (kept apart from the
        session's own requests, so ``/cost`` can show the split)."""
        self.subagents.append(run)
        for model, usage in run.usage_by_model.items():
            before = self.subagent_usage_by_model.get(model, Usage())
            self.subagent_usage_by_model[model] = before + usage

    def header(self) -> dict[str, Any]:
        """The ``session`` line that starts this record's file."""
        data: dict[str, Any] = {
            "type": "session",
            "version": FORMAT_VERSION,
            "id": self.id,
            "workspace": self.workspace,
            "created_at": self.created_at,
            "provider": self.provider,
            "model": self.model,
        }
        if self.forked_from:
            data["forked_from"] = self.forked_from
        if self.parent_id:
            data["parent_id"] = self.parent_id
            data["parent_call_id"] = self.parent_call_id
            data["agent"] = self.agent
        return data


@dataclass
class TokenCounts:
    """Exact token counts made for a session, with the tokenizer that made them: per message
    id (as the message is in the transcript) and per tool-call id (how its result is cut for
    the model, :class:`lull.context.truncate.Cut`: ``[total]`` or ``[total, head, tail,
    omitted]``), so a resumed session counts only what is new."""

    tokenizer: str
    messages: dict[str, int] = field(default_factory=dict)
    results: dict[str, list[int]] = field(default_factory=dict)

    def add(self, tokenizer: str, messages: dict[str, int], results: dict[str, list[int]]) -> None:
        """Take newer counts (those of another tokenizer replace everything kept)."""
        if tokenizer != self.tokenizer:
            self.tokenizer, self.messages, self.results = tokenizer, {}, {}
        self.messages.update(messages)
        self.results.update(results)


@dataclass(frozen=True)
class SubagentRun:
    """A sub-agent a session ran: the parent's call, the child's session and its usage."""

    call_id: str
    session_id: str
    agent: str
    usage_by_model: dict[str, Usage]

    def to_record(self) -> dict[str, Any]:
        """The ``subagent`` line of the parent's session file."""
        return {
            "type": "subagent",
            "call_id": self.call_id,
            "session_id": self.session_id,
            "agent": self.agent,
            "usage": {
                model: {**usage.to_dict(), "reported": usage.reported}
                for model, usage in self.usage_by_model.items()
            },
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> SubagentRun:
        """The run a ``subagent`` line stands for."""
        usage = {str(model): Usage(**dict(u)) for model, u in dict(data["usage"]).items()}
        return cls(str(data["call_id"]), str(data["session_id"]), str(data["agent"]), usage)
