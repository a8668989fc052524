"""/clear (start a new session) and /resume (pick a saved session of this workspace)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, SessionChoice, hint, no_argument, say
from lull.engine.sessions.load import SessionNotFound, load_notes, load_session
from lull.engine.sessions.record import SessionRecord
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore

if TYPE_CHECKING:
    from lull.runtime import Runtime

MAX_CHOICES = 20
PROMPT_WIDTH = 60


def clear_command(runtime: Runtime, arg: str) -> CommandResult:
    """/clear: continue in a new, empty session (same store, same provider)."""
    if (problem := no_argument("clear", arg)) is not None:
        return problem
    from lull.runtime import SwitchError

    old = runtime.agent.session
    try:
        fresh = runtime.new_session()
    except SwitchError as error:
        return hint(str(error))
    lines = [f"new session {fresh.id}"]
    if runtime.unsaved_on_switch:
        lines.append(f"warning: {runtime.unsaved_on_switch}")
    elif old.transcript:
        lines.append(f"the previous one is saved: lull --resume {old.id}")
    return CommandResult(tuple(lines), session_changed=True)


def resume_command(runtime: Runtime, arg: str) -> CommandResult:
    """/resume lists saved sessions to pick from; /resume ID resumes one directly."""
    if arg.strip():
        return resume_session(runtime, arg.strip())
    choices = list_sessions(runtime.store, exclude=runtime.agent.session.id)
    if not choices:
        return say("no other saved session in this workspace")
    lines = ["saved sessions of this workspace, newest first:"]
    for number, choice in enumerate(choices, 1):
        lines.append(f"  {number:>2}. {choice_line(choice)}")
    return CommandResult(tuple(lines), sessions=tuple(choices))


def choice_line(choice: SessionChoice) -> str:
    """One session as a picker line: short id, last activity, size, first prompt."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(choice.updated_at))
    return (
        f"{choice.id[:8]}  {when}  {choice.message_count:>3} messages  "
        f"{choice.first_prompt or '(no prompt)'}"
    )


def list_sessions(
    store: SessionStore, exclude: str | None = None, limit: int = MAX_CHOICES
) -> list[SessionChoice]:
    """The newest saved sessions of the store's workspace that hold any message (at most
    ``limit``)."""
    choices: list[SessionChoice] = []
    for path in store.list_sessions():
        if path.stem == exclude:
            continue
        try:
            record = load_session(path)
            updated = path.stat().st_mtime
        except (OSError, SessionNotFound, UnicodeDecodeError):
            continue
        if record.messages:
            choices.append(_choice(record, updated))
        if len(choices) >= limit:
            break
    return choices


def _choice(record: SessionRecord, updated: float) -> SessionChoice:
    prompt = next((m.text for m in record.messages if m.origin == "user" and m.text), "")
    first = " ".join(prompt.split())
    if len(first) > PROMPT_WIDTH:
        first = first[: PROMPT_WIDTH - 1] + "…"
    return SessionChoice(record.id, record.created_at, updated, first, len(record.messages))


def resume_session(runtime: Runtime, session_id: str) -> CommandResult:
    """Switch to the saved session ``session_id`` (an id prefix is enough)."""
    from lull.runtime import SwitchError

    current = runtime.agent.session
    try:
        session = runtime.resume(session_id)
    except SwitchError as error:
        return hint(str(error))
    if session is current:
        return say(f"already in session {session.id}")
    lines = _resumed_lines(session)
    if runtime.unsaved_on_switch:
        lines = (*lines, f"warning: {runtime.unsaved_on_switch}")
    return CommandResult(lines, session_changed=True)


def _resumed_lines(session: Session) -> tuple[str, ...]:
    lines = [f"resumed session {session.id} ({len(session.transcript)} messages)"]
    lines.extend(f"warning: {note}" for note in load_notes(session.record, session.path))
    return tuple(lines)
