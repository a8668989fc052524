"""A live session: transcript, context edits, idle clock and usage, persisted as it grows."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path

from lull.context.estimate import estimate_message_tokens
from lull.context.view import appended_view, build_view, without_rewound
from lull.engine.sessions.pairing import unique_call_ids
from lull.engine.sessions.record import SessionRecord, SubagentRun, TokenCounts
from lull.engine.sessions.store import SessionStore
from lull.engine.sessions.writer import SessionWriter
from lull.model.edits import ContextEdit
from lull.model.events import Notice
from lull.model.messages import Message, Part, ToolCall, ToolResult, unanswered_calls
from lull.model.provider import Usage
from lull.model.rollbacks import RolledBack

CANCELLED_RESULT = "Cancelled by the user before it finished; no result."
"""The result of a call the user cancelled before it finished."""

Clock = Callable[[], float]


class Session:
    """The conversation the engine works on.

    The transcript only grows; what the model sees is :meth:`view`. Every
    change is appended to the session file at once; if writing fails, the session goes on
    in memory and :meth:`take_save_notice` says so (the writer retries on every change).
    """

    def __init__(self, record: SessionRecord, writer: SessionWriter | None) -> None:
        self.record = record
        self._writer = writer
        self._path = writer.path if writer else None
        self._call_ids: set[str] | None = None

    # --- construction -----------------------------------------------------------------

    @classmethod
    def create(
        cls, store: SessionStore | None, *, provider: str, model: str, clock: Clock = time.time
    ) -> Session:
        """A new, empty session (saved under ``store`` unless it is None)."""
        return cls._new(store, clock, provider=provider, model=model)

    @classmethod
    def create_child(
        cls,
        store: SessionStore | None,
        parent: Session,
        call_id: str,
        agent: str,
        *,
        provider: str,
        model: str,
        clock: Clock = time.time,
    ) -> Session:
        """A new session for a sub-agent, its header naming the parent session and call."""
        return cls._new(
            store,
            clock,
            provider=provider,
            model=model,
            parent_id=parent.id,
            parent_call_id=call_id,
            agent=agent,
        )

    @classmethod
    def _new(
        cls,
        store: SessionStore | None,
        clock: Clock,
        *,
        provider: str,
        model: str,
        parent_id: str = "",
        parent_call_id: str = "",
        agent: str = "",
    ) -> Session:
        """A session with a fresh id, opened for writing under ``store`` (in memory only
        when it is None); a sub-agent's names its parent session and call."""
        record = SessionRecord(
            id=str(uuid.uuid4()),
            workspace=str(store.workspace) if store else "",
            created_at=clock(),
            provider=provider,
            model=model,
            parent_id=parent_id,
            parent_call_id=parent_call_id,
            agent=agent,
        )
        writer = store.open_writer(record) if store else None
        return cls(record, writer)

    def record_subagent(self, run: SubagentRun) -> None:
        """Note a finished sub-agent (its session and usage) in this session and its file."""
        self.record.add_subagent(run)
        if self._writer:
            self._writer.append(run.to_record())

    @classmethod
    def resume(cls, store: SessionStore, path: Path) -> Session:
        """A saved session, ready to continue (its idle clock restored), locked for this
        process: raises ``SessionLocked`` if another one writes it."""
        record, writer = store.open_saved(path)
        return cls(record, writer)

    # --- reading ----------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The session id (a UUID)."""
        return self.record.id

    @property
    def transcript(self) -> list[Message]:
        """Every message ever added, unedited."""
        return self.record.messages

    @property
    def edits(self) -> list[ContextEdit]:
        """Context edits in the order they were made."""
        return self.record.edits

    @property
    def last_response_at(self) -> float | None:
        """When the last API response completed (the idle clock), or None."""
        return self.record.last_response_at

    @property
    def usage(self) -> Usage:
        """Usage summed over every request of the session."""
        return self.record.usage

    @property
    def usage_by_model(self) -> dict[str, Usage]:
        """Usage per model that answered (the main model, a summary model, after /model)."""
        return self.record.usage_by_model

    @property
    def path(self) -> Path | None:
        """The session file, if persisted."""
        return self._path

    def view(self) -> list[Message]:
        """What the model sees: the transcript with the context edits applied."""
        return build_view(self.record.messages, self.record.edits)

    def view_since(self, messages: int, edits: int) -> list[Message] | None:
        """What :meth:`view` has past the view of when the session had ``messages`` messages
        and ``edits`` edits, if only messages were added since (None: build the whole view
        again; :func:`~lull.context.view.appended_view`)."""
        if edits != len(self.record.edits) or messages >= len(self.record.messages):
            return None
        return appended_view(self.record.messages, self.record.edits, messages)

    def shown(self) -> list[Message]:
        """The transcript as front ends replay it: without the messages /rewind hid."""
        return without_rewound(self.record.messages, self.record.edits)

    def view_with(self, edit: ContextEdit) -> list[Message]:
        """The view if ``edit`` were recorded too (for checks before recording it)."""
        return build_view(self.record.messages, [*self.record.edits, edit])

    def context_tokens(self) -> int:
        """Estimated tokens of the current view's messages."""
        return sum(estimate_message_tokens(m) for m in self.view())

    # --- changing ---------------------------------------------------------------------

    def add(self, message: Message) -> None:
        """Append a message to the transcript and the file."""
        self.record.messages.append(message)
        if self._call_ids is not None:
            self._call_ids.update(call.id for call in message.tool_calls)
        if self._writer:
            self._writer.message(message)

    def add_rollback(self, rolled: RolledBack) -> None:
        """Save a rolled-back reply, marked: kept in the file for ``/context`` and the log,
        never part of the transcript (so no request sends it, after a resume neither)."""
        self.record.rollbacks.append(rolled)
        if self._writer:
            self._writer.rollback(rolled)

    def add_edit(self, edit: ContextEdit) -> None:
        """Record a context edit (the transcript stays as it is)."""
        self.record.edits.append(edit)
        if self._writer:
            self._writer.edit(edit)

    def record_response(self, at: float, usage: Usage, model: str, local_prompt: int = 0) -> None:
        """Note a completed API response: moves the idle clock and adds usage.

        ``local_prompt`` is the local token estimate of the prompt sent; saved with the
        reported size, it lets a resumed session start with calibrated token counts.
        """
        self.record.add_response(at, usage, model, local_prompt)
        if self._writer:
            self._writer.response(at, usage, model, local_prompt)

    def record_tool_times(self, seconds: dict[str, float]) -> None:
        """Keep how long each of a batch's calls ran (tool-call id -> wall seconds), for the
        per-tool figures of ``/cost`` and ``-p`` json."""
        if not seconds:
            return
        self.record.tool_seconds.update(seconds)
        if self._writer:
            self._writer.tool_times(seconds)

    def save_token_counts(
        self, tokenizer: str, messages: dict[str, int], results: dict[str, list[int]]
    ) -> None:
        """Keep exact token counts (message id -> tokens; tool-call id -> how its result is
        cut) made by ``tokenizer``, so a resume need not count them again."""
        if not messages and not results:
            return
        if self.record.token_counts is None:
            self.record.token_counts = TokenCounts(tokenizer)
        self.record.token_counts.add(tokenizer, messages, results)
        if self._writer:
            self._writer.tokens(tokenizer, messages, results)

    @property
    def loaded_tools(self) -> tuple[str, ...]:
        """The deferred tools this session loaded, in the order they joined the tool list."""
        return tuple(self.record.loaded_tools)

    def record_loaded_tools(self, names: tuple[str, ...]) -> None:
        """Keep deferred tools that were just loaded (``tool_search``, or a call to one), so
        a resume offers them again, in the same place."""
        fresh = tuple(n for n in names if n not in self.record.loaded_tools)
        if not fresh:
            return
        self.record.loaded_tools.extend(fresh)
        if self._writer:
            self._writer.tools_loaded(fresh)

    def use_environment(self, text: str) -> None:
        """Record the environment block (workspace, date, git status) this run sends."""
        if text != self.record.environment:
            self.record.environment = text
            if self._writer:
                self._writer.environment(text)

    def claim_call_ids(self, parts: tuple[Part, ...]) -> tuple[Part, ...]:
        """``parts`` of a message just received, each tool call's id made unique within the
        session (a duplicate gets a ``_N`` suffix), so each call gets its own result."""
        if self._call_ids is None:
            self._call_ids = {  # one pass, no tuple a message: a resume has thousands
                part.id
                for message in self.record.messages
                for part in message.parts
                if isinstance(part, ToolCall)
            }
        return unique_call_ids(parts, self._call_ids)

    def take_save_notice(self) -> Notice | None:
        """A change in saving not yet told (writing failed; it works again), else None."""
        return self._writer.take_notice() if self._writer else None

    def close_open_calls(self, reason: str) -> int:
        """Give every unanswered tool call a synthetic error result; returns how many."""
        missing = unanswered_calls(self.record.messages)
        if not missing:
            return 0
        parts = tuple(ToolResult(c.id, c.name, reason, is_error=True) for c in missing)
        self.add(Message("user", parts, origin="synthetic"))
        return len(missing)

    def close(self) -> str | None:
        """Save what waits, close the session file and release its lock; returns what could
        not be saved (None when everything is on disk)."""
        if not self._writer:
            return None
        writer, self._writer = self._writer, None
        return writer.close()
