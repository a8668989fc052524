"""A session id is literal text (``-r '*'`` is no glob), and a bad ``--resume`` value
gets one line saying so, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.engine.sessions.load import SessionNotFound
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStore
from tests.fakes import FakeServer
from tests.reliability.conftest import Lull, store_of


@pytest.mark.parametrize("wanted", ["*", "?", "[a-f]*", "**/x", "../escape", "a/b"])
def test_find_treats_the_session_id_as_literal_text(
    wanted: str, tmp_path: Path, workspace: Path
) -> None:
    store = SessionStore(tmp_path / "sessions", workspace)
    Session.create(store, provider="scripted", model="m").close()

    with pytest.raises(SessionNotFound) as missing:
        store.find(wanted)

    assert str(missing.value).startswith(f"no saved session {wanted!r}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "code", "message"),
    [
        ("*", 1, "lull: error: no saved session '*'"),
        ("[", 1, "lull: error: no saved session '['"),
        ("../../etc/passwd", 1, "lull: error: no saved session '../../etc/passwd'"),
        ("", 2, "argument -r/--resume: expected a session id, got an empty string"),
    ],
)
def test_a_bad_resume_value_gets_one_line(
    value: str, code: int, message: str, lull: Lull, fake: FakeServer
) -> None:
    Session.create(store_of(lull), provider="anthropic", model="m").close()  # one to match

    done = lull.run("-r", value, "-p", "hello")

    assert done.returncode == code
    assert "Traceback" not in done.stderr
    assert message in done.stderr.strip().splitlines()[-1]
    if code == 1:
        assert len(done.stderr.strip().splitlines()) == 1
