"""What the engine tells a front end while a turn runs.

Front ends (TUI, line mode, one-shot printer) consume only these values; they
never look inside the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.model.edits import ContextEdit
from app.model.messages import ToolCall, ToolResult
from app.model.provider import ErrorKind, StopReason, Usage

NoticeLevel = Literal["info", "warning", "error"]
RequestPurpose = Literal["turn", "summary"]
"""A request the user's turn made, or a summary request of a compression."""
TurnStop = StopReason | Literal["max_turns"]
"""Why a turn ended: the model's stop reason, or lull's ``maxTurns`` limit."""
SubagentStep = Literal["started", "tool", "request", "finished"]
"""What a sub-agent did: began, started a tool call, finished a model request, ended."""


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A user message started a turn."""

    prompt: str


@dataclass(frozen=True, slots=True)
class AssistantText:
    """A fragment of the answer."""

    text: str


@dataclass(frozen=True, slots=True)
class AssistantThinking:
    """A fragment of the model's reasoning."""

    text: str


@dataclass(frozen=True, slots=True)
class AttemptDiscarded:
    """The answer streamed since the request started was thrown away (the stream broke).

    Nothing of it was saved or will be sent to the model again; the request is retried or
    the turn fails next. ``text`` is the discarded answer text (thinking is not repeated),
    ``reason`` the one-line cause. Front ends must not show that text as the answer.
    """

    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A tool call is about to run (after approval)."""

    call: ToolCall
    summary: str


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool call has its result (run, denied, failed or cancelled)."""

    call: ToolCall
    result: ToolResult
    display: str | None = None


@dataclass(frozen=True, slots=True)
class RequestFinished:
    """One model request completed; ``usage`` is what the provider reported.

    ``context_tokens`` is the estimated prompt size of the next request and
    ``context_window`` the model's window (0 when unknown), for a "context N%"
    display. ``purpose`` is "turn", or "summary" for a compression request;
    ``model`` is the model that answered (for pricing).
    """

    usage: Usage
    index: int
    context_tokens: int
    context_window: int = 0
    purpose: RequestPurpose = "turn"
    model: str = ""


@dataclass(frozen=True, slots=True)
class SubagentUpdate:
    """A sub-agent (the ``task`` tool) made progress inside the parent's call ``call_id``.

    ``step`` says what: ``started`` (``text`` is the task's description), ``tool`` (``text``
    is the child's call, e.g. ``read_file(app.py)``), ``request`` (``usage`` and ``model`` of
    one child request, for costs), ``finished`` (``text`` is a one-line outcome).
    ``session_id`` is the child's own saved session. Front ends show the steps nested in the
    task call's block, collapsed.
    """

    call_id: str
    agent: str
    step: SubagentStep
    text: str
    session_id: str
    usage: Usage | None = None
    model: str = ""


@dataclass(frozen=True, slots=True)
class ContextEdited:
    """The view changed (idle cleanup, compression, emergency clear, restore).

    ``description`` is one line for the user, e.g. "compressed context: summarised
    40 messages (~61,000 tokens) into ~2,100; kept …".
    """

    edit: ContextEdit
    description: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know (level: info, warning, error)."""

    level: NoticeLevel
    text: str


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn ended; ``text`` is the final answer text."""

    text: str
    stop_reason: TurnStop


@dataclass(frozen=True, slots=True)
class TurnFailed:
    """The turn ended with an error the user must act on (one line)."""

    message: str
    kind: ErrorKind


Event = (
    TurnStarted
    | AssistantText
    | AssistantThinking
    | AttemptDiscarded
    | ToolStarted
    | ToolFinished
    | SubagentUpdate
    | RequestFinished
    | ContextEdited
    | Notice
    | TurnFinished
    | TurnFailed
)
