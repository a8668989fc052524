"""What the engine tells a front end while a turn runs.

Front ends (TUI, line mode, one-shot printer) consume only these values; they
never look inside the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lull.model.edits import ContextEdit
from lull.model.messages import ToolCall, ToolResult
from lull.model.provider import ErrorKind, StopReason, Usage

NoticeLevel = Literal["info", "warning", "error"]
RequestPurpose = Literal["turn", "summary", "failure_summary"]
"""A request the user's turn made, a summary request of a compression, or the failure
summary of a ``-p`` attempt that ended without an answer."""
GuardStop = Literal["max_turns", "rollbacks", "doom_loop", "tool_failures", "repetition"]
"""Why lull stopped a turn itself: ``maxTurns``, too many rolled-back replies (in a row or
in all), the same tool call over and over, tool calls failing over and over, or an answer
that kept repeating itself."""
TurnStop = StopReason | GuardStop
"""Why a turn ended: the model's stop reason, or one of lull's limits."""
GuardKind = Literal[
    "rollback", "duplicate", "doom_loop", "repetition", "continuation", "tool_retry", "attempt"
]
"""Which guardrail acted (counted under ``guardrails`` in ``-p`` json)."""
AttemptOutcome = Literal[
    "answered",
    "cut",
    "empty",
    "failed",
    "max_turns",
    "window",
    "rollbacks",
    "doom_loop",
    "tool_failures",
    "repetition",
]
"""How one ``-p`` attempt ended: with an answer, a cut or empty one, a request that failed,
or (the ones worth a fresh attempt) ``maxTurns``, the window exhausted after compression,
the rollback budget, a doom loop, repeated tool failures, or a repeating answer."""
FailureType = Literal["incomplete", "blocked", "misdirected", "format_missed"]
"""The kind of a failed attempt, as its failure summary says (the reference harness's four)."""
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
    """A tool call is about to run (after approval).

    ``repairs`` says what lull fixed in the arguments before running it (one phrase each,
    e.g. "file_path -> path"); ``summary`` is made from the repaired arguments.
    """

    call: ToolCall
    summary: str
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool call has its result (run, denied, failed or cancelled). ``denied``: it did not
    run because a permission refused it (a rule, a hook, the approval mode, the user, or the
    ``allowed-tools`` of the command or skill in use)."""

    call: ToolCall
    result: ToolResult
    display: str | None = None
    denied: bool = False


@dataclass(frozen=True, slots=True)
class RequestFinished:
    """One model request completed; ``usage`` is what the provider reported.

    ``context_tokens`` is the estimated prompt size of the next request and
    ``context_window`` the model's window (0 when unknown), for a "context N%"
    display. ``purpose`` is "turn", or "summary" for a compression request;
    ``model`` is the model that answered (for pricing). ``stop_reason`` is why the reply
    ended and ``tool_calls`` the calls of a kept reply (they run next; none when the reply
    was rolled back).
    """

    usage: Usage
    index: int
    context_tokens: int
    context_window: int = 0
    purpose: RequestPurpose = "turn"
    model: str = ""
    stop_reason: StopReason | None = None
    tool_calls: tuple[ToolCall, ...] = ()


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
class PromptOffloaded:
    """The user's message was too large to send whole (``tokens``, estimated, over ``limit``):
    it was saved to ``path`` and the model was sent where it is, its first and last lines and
    how to read it in parts. ``text`` is one line for the user."""

    path: str
    tokens: int
    limit: int
    text: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know (level: info, warning, error)."""

    level: NoticeLevel
    text: str


@dataclass(frozen=True, slots=True)
class GuardrailTriggered:
    """A guardrail acted: a reply rolled back, a duplicate call answered with a pointer, a
    loop or a repeating answer stopped, an answer continued, a tool call retried, a fresh
    ``-p`` attempt started.

    ``text`` is one line for the user; ``reason`` refines ``kind`` (for a rollback, a
    :data:`~lull.model.rollbacks.RollbackReason`), so counts can be kept per reason.
    """

    kind: GuardKind
    text: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class AttemptStarted:
    """A ``-p`` attempt starts (``number`` of ``total``) in session ``session_id``."""

    number: int
    total: int
    session_id: str


@dataclass(frozen=True, slots=True)
class AttemptFinished:
    """A ``-p`` attempt ended.

    ``failure_type`` and ``summary`` come from the failure summary of an attempt that ended
    without an answer (None and "" otherwise); ``answer`` is the last complete, non-empty
    answer text the attempt produced (its entry in the answer pool; "" if none).
    """

    number: int
    session_id: str
    outcome: AttemptOutcome
    failure_type: FailureType | None = None
    summary: str = ""
    answer: str = ""


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn ended; ``text`` is the final answer text.

    ``detail`` is one line saying why, when lull stopped the turn itself (a loop, the
    rollback budget); "" otherwise.
    """

    text: str
    stop_reason: TurnStop
    detail: str = ""


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
    | PromptOffloaded
    | Notice
    | GuardrailTriggered
    | AttemptStarted
    | AttemptFinished
    | TurnFinished
    | TurnFailed
)
