"""/clear (start a new session) and /resume (pick a saved session of this workspace)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import (
    CommandContext,
    CommandResult,
    SessionChoice,
    context_for,
    hint,
    needs_runtime,
    replace_agent,
    say,
)
from app.engine.agent import Agent
from app.engine.session import Session
from app.engine.store import SessionNotFound, SessionRecord, SessionStore, load_session

if TYPE_CHECKING:
    from app.runtime import Runtime

MAX_CHOICES = 20
PROMPT_WIDTH = 60


def clear_command(ctx: CommandContext, arg: str) -> CommandResult:
    """/clear: continue in a new, empty session (same store, same provider)."""
    if arg.strip():
        return hint(f"/clear takes no argument (got {arg.strip()!r})")
    runtime = ctx.runtime
    if runtime is None:
        return needs_runtime("clear")
    old = ctx.agent.session
    config = runtime.provider_config
    fresh = Session.create(
        runtime.store, provider=config.provider, model=config.model, clock=ctx.agent.clock
    )
    _switch(runtime, fresh)
    lines = [f"new session {fresh.id}"]
    if old.transcript:
        lines.append(f"the previous one is saved: lull --resume {old.id}")
    return CommandResult(tuple(lines), session_changed=True)


def resume_command(ctx: CommandContext, arg: str) -> CommandResult:
    """/resume lists saved sessions to pick from; /resume ID resumes one directly."""
    if arg.strip():
        return resume_session(ctx, arg.strip())
    runtime = ctx.runtime
    if runtime is None:
        return needs_runtime("resume")
    choices = list_sessions(runtime.store, exclude=ctx.agent.session.id)
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


def list_sessions(store: SessionStore, exclude: str | None = None) -> list[SessionChoice]:
    """The newest saved sessions of the store's workspace that hold any message."""
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
        if len(choices) >= MAX_CHOICES:
            break
    return choices


def _choice(record: SessionRecord, updated: float) -> SessionChoice:
    prompt = next((m.text for m in record.messages if m.origin == "user" and m.text), "")
    first = " ".join(prompt.split())
    if len(first) > PROMPT_WIDTH:
        first = first[: PROMPT_WIDTH - 1] + "…"
    return SessionChoice(record.id, record.created_at, updated, first, len(record.messages))


def resume_session(target: Agent | Runtime | CommandContext, session_id: str) -> CommandResult:
    """Switch the agent to the saved session ``session_id`` (an id prefix is enough)."""
    ctx = context_for(target)
    runtime = ctx.runtime
    if runtime is None:
        return needs_runtime("resume")
    store = runtime.store
    try:
        path = store.find(session_id)
    except SessionNotFound as error:
        return hint(str(error))
    if path.stem == ctx.agent.session.id:
        return say(f"already in session {path.stem}")
    if path.parent != store.dir:
        return hint(
            f"session {path.stem} belongs to another workspace; "
            f"run `lull -C DIR --resume {path.stem}` there"
        )
    try:
        session = Session.resume(store, path)
    except (OSError, SessionNotFound) as error:
        return hint(f"cannot resume {path.stem}: {error}")
    _switch(runtime, session)
    runtime.resumed = True
    return CommandResult(_resumed_lines(session, path), session_changed=True)


def _resumed_lines(session: Session, path: Path) -> tuple[str, ...]:
    lines = [f"resumed session {session.id} ({len(session.transcript)} messages)"]
    if session.record.skipped_lines:
        lines.append(
            f"warning: skipped {session.record.skipped_lines} unreadable line(s) in {path}"
        )
    return tuple(lines)


def _switch(runtime: Runtime, session: Session) -> None:
    """Continue on ``session``: the old one is closed, "allow always" answers are reset."""
    runtime.agent.session.close()
    runtime.agent.tools.always_allowed.clear()
    replace_agent(runtime, session=session)
