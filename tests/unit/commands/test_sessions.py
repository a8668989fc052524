"""/clear and /resume: sessions switch through the runtime and stay saved.

Against a real agent: the official SDK and the strict fake server, saved sessions.
"""

from __future__ import annotations

import json

from lull.commands import (
    resume_session,
    run_command,
)
from lull.runtime import Runtime
from lull.tools.builtin.shell import ShellTool
from tests.fakes import FakeServer, Reply
from tests.support import run

SHELL = ShellTool()


async def test_clear_starts_an_empty_session_and_keeps_the_old_one(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="remember 42"), Reply(text="fresh"))
    await run(runtime.agent, "the number is 42")
    old = runtime.agent.session
    runtime.agent.tools.rules.remember(SHELL, {"command": "ls"}, ("run_shell_command",), "session")

    result = run_command(runtime, "/clear")
    assert result.session_changed
    assert result.lines[1] == f"the previous one is saved: lull --resume {old.id}"
    assert runtime.agent.session.id != old.id and not runtime.agent.session.transcript
    assert not runtime.agent.tools.rules.session
    assert runtime.store.path_for(old.id).is_file()

    await run(runtime.agent, "what number?")
    assert "42" not in json.dumps(fake.requests[-1]["messages"])


async def test_resume_lists_saved_sessions_and_switches_to_the_chosen_one(
    runtime: Runtime, fake: FakeServer
) -> None:
    fake.script(Reply(text="noted"), Reply(text="other"), Reply(text="I remember"))
    await run(runtime.agent, "the   secret word\nis tangerine")
    first = runtime.agent.session.id
    run_command(runtime, "/clear")
    await run(runtime.agent, "unrelated")
    run_command(runtime, "/clear")  # an empty session: never offered

    listing = run_command(runtime, "/resume")
    assert [c.id for c in listing.sessions][-1] == first
    chosen = next(c for c in listing.sessions if c.id == first)
    assert chosen.first_prompt == "the secret word is tangerine"
    assert chosen.message_count == 2
    assert any(first[:8] in line and "tangerine" in line for line in listing.lines)

    result = resume_session(runtime, first[:8])
    assert result.session_changed and result.lines[0] == f"resumed session {first} (2 messages)"
    assert runtime.agent.session.id == first and runtime.resumed
    await run(runtime.agent, "what was the word?")
    assert "tangerine" in json.dumps(fake.requests[-1]["messages"])


def test_resume_says_what_is_wrong_with_an_id(runtime: Runtime) -> None:
    assert run_command(runtime, "/resume").lines == ("no other saved session in this workspace",)
    missing = run_command(runtime, "/resume nosuchid")
    assert missing.error and "no saved session 'nosuchid'" in missing.lines[0]
    current = runtime.agent.session.id
    assert run_command(runtime, f"/resume {current}").lines == (f"already in session {current}",)
