"""/notes: show the session notes, add one (KEY: TEXT or just TEXT), delete one."""

from __future__ import annotations

from lull.commands import run_command
from lull.commands.notes import split_note
from lull.runtime import Runtime
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import run


async def test_notes_from_the_model_and_the_user(runtime: Runtime, fake: FakeServer) -> None:
    assert run_command(runtime, "/notes").lines[0].startswith("no session notes yet")
    fake.script(
        Reply(tool_calls=[ToolUse("note", {"key": "tabs", "text": "the user wants tabs"})]),
        Reply(text="noted"),
    )
    await run(runtime.agent, "I want tabs, remember it")
    added = run_command(runtime, "/notes add tests: run them with make check")
    assert added.lines == ("noted 'tests': the model sees it with your next message",)
    run_command(runtime, "/notes add keep the public API stable")
    lines = run_command(runtime, "/notes").lines
    assert lines[1:] == (
        "  tabs: the user wants tabs  (model)",
        "  tests: run them with make check  (you)",
        "  note-1: keep the public API stable  (you)",
    )
    fake.script(Reply(text="ok"))
    await run(runtime.agent, "go on")
    sent = str(fake.requests[-1]["messages"])
    assert "[lull: session note from the user] tests: run them with make check" in sent

    assert run_command(runtime, "/notes delete tests").lines == ("deleted note 'tests'",)
    assert "tests" not in " ".join(run_command(runtime, "/notes").lines)


def test_bad_notes_input_gets_a_one_line_hint(runtime: Runtime) -> None:
    missing = run_command(runtime, "/notes delete nope")
    assert missing.error and missing.lines == ("/notes delete: no note 'nope' (notes: none)",)
    empty = run_command(runtime, "/notes add")
    assert empty.error and "needs the note" in empty.lines[0]
    long = run_command(runtime, "/notes add " + "x" * 600)
    assert long.error and "at most 500 characters (got 600)" in long.lines[0]
    other = run_command(runtime, "/notes list")
    assert other.error and "unknown /notes argument 'list'" in other.lines[0]


def test_a_note_key_is_one_word_before_a_colon() -> None:
    assert split_note("tests: make check", set()) == ("tests", "make check")
    assert split_note("run it: now, please", {"note-1"}) == ("note-2", "run it: now, please")
    assert split_note("http://x.y is the docs", set())[0] == "note-1"
