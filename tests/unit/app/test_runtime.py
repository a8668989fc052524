"""Runtime wiring: the environment block survives a quick resume byte for byte."""

from __future__ import annotations

from pathlib import Path

from app.engine.session import Session
from app.engine.store import SessionStore
from app.model.messages import user_text
from app.model.provider import Usage
from app.runtime import session_environment


def _saved_session(tmp_path: Path, workspace: Path) -> tuple[SessionStore, str]:
    store = SessionStore(tmp_path / "sessions", workspace)
    session = Session.create(store, provider="anthropic", model="m")
    environment = session_environment(session, workspace, now=1000.0)
    session.add(user_text("hi"))
    session.record_response(1000.0, Usage(input=1), "m")
    session.close()
    return store, environment


def test_quick_resume_reuses_the_saved_environment(tmp_path: Path, workspace: Path) -> None:
    store, first = _saved_session(tmp_path, workspace)
    (workspace / "AGENTS.md").write_text("new rules\n")  # would change the block if recomputed
    resumed = Session.resume(store, store.latest())
    assert session_environment(resumed, workspace, now=1000.0 + 30 * 60) == first


def test_a_late_resume_gets_a_fresh_environment_and_saves_it(
    tmp_path: Path, workspace: Path
) -> None:
    store, first = _saved_session(tmp_path, workspace)
    (workspace / "AGENTS.md").write_text("new rules\n")
    resumed = Session.resume(store, store.latest())
    fresh = session_environment(resumed, workspace, now=1000.0 + 2 * 3600)
    assert fresh != first and "new rules" in fresh
    resumed.close()
    again = Session.resume(store, store.latest())
    assert again.record.environment == fresh
