"""/undo and /rewind on a real runtime (scripted model, real tools and files): the files of
the last turn put back, the prompts listed, code and conversation rewound, an outside change
refused until forced, checkpoints kept across --resume (and copied by --fork-session) and
listed in /context."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lull.commands import run_command
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.runtime import RunOptions, Runtime, build_runtime
from tests.support import run

PROMPTS = ("create the notes", "fix the config")


def _write(path: str, content: str) -> ScriptedReply:
    call = ScriptedCall("write_file", {"path": path, "content": content})
    return ScriptedReply(tool_calls=(call,))


def _edit(path: str, old: str, new: str) -> ScriptedReply:
    call = ScriptedCall("edit", {"path": path, "old_string": old, "new_string": new})
    return ScriptedReply(tool_calls=(call,))


async def _two_turns(workspace: Path, runtime: Runtime | None = None) -> Runtime:
    """Prompt 1 creates notes.md; prompt 2 edits config.toml (which existed) in yolo mode."""
    (workspace / "config.toml").write_text("debug = false\n")
    runtime = runtime or build_runtime(
        RunOptions(workspace=workspace, demo=True, approval_mode="yolo"), env={}
    )
    provider = runtime.agent.provider
    assert isinstance(provider, ScriptedProvider)
    provider.script(_write("notes.md", "# notes\n"), ScriptedReply(text="created"))
    await run(runtime.agent, PROMPTS[0])
    provider.script(_edit("config.toml", "false", "true"), ScriptedReply(text="fixed"))
    await run(runtime.agent, PROMPTS[1])
    assert (workspace / "config.toml").read_text() == "debug = true\n"
    return runtime


async def test_undo_reverts_the_last_turn_and_says_which_files(workspace: Path) -> None:
    runtime = await _two_turns(workspace)
    lines = run_command(runtime, "/undo").lines
    assert lines[0] == "/undo (the changes of prompt 2): 1 file(s):"
    assert lines[1] == f"  restored {workspace.resolve() / 'config.toml'}"
    assert lines[-1].startswith("shell commands' file changes are tracked only in a git")
    assert (workspace / "config.toml").read_text() == "debug = false\n"
    assert (workspace / "notes.md").exists()
    second = run_command(runtime, "/undo").lines
    assert second[1] == f"  deleted {workspace.resolve() / 'notes.md'}"
    assert not (workspace / "notes.md").exists()
    assert run_command(runtime, "/undo").lines[0].startswith("nothing to undo")
    runtime.close()


async def test_rewind_lists_prompts_then_restores_code_and_conversation(workspace: Path) -> None:
    runtime = await _two_turns(workspace)
    listing = run_command(runtime, "/rewind")
    assert listing.lines[1] == "    1. create the notes  [1 file(s) changed]"
    assert listing.lines[2] == "    2. fix the config  [1 file(s) changed]"
    assert [(f.label, f.command) for f in listing.follow_ups] == [
        ("1. create the notes", "/rewind 1"),
        ("2. fix the config", "/rewind 2"),
    ]
    asked = run_command(runtime, "/rewind 1")
    assert asked.lines[1].startswith("lull changed 2 file(s) since;")
    assert [f.command for f in asked.follow_ups] == [
        "/rewind 1 both",
        "/rewind 1 conversation",
        "/rewind 1 code",
    ]
    assert (workspace / "notes.md").exists()  # asking changed nothing
    result = run_command(runtime, asked.follow_ups[0].command)
    assert not result.error and result.session_changed
    assert not (workspace / "notes.md").exists()
    assert (workspace / "config.toml").read_text() == "debug = false\n"
    assert any("the conversation is back to before prompt 1" in line for line in result.lines)
    provider = runtime.agent.provider
    assert isinstance(provider, ScriptedProvider)
    await run(runtime.agent, "start over")
    sent = [m.text for m in provider.requests[-1].messages]
    assert not any(p in text for p in PROMPTS for text in sent)
    assert len(runtime.agent.session.transcript) > 2  # the session file keeps everything
    assert any("/rewind hid" in line for line in run_command(runtime, "/context").lines)
    restored = run_command(runtime, "/context restore rewind")
    assert restored.lines[0].startswith("restored the 8 message(s) the latest /rewind hid")
    await run(runtime.agent, "and with the old prompts")
    sent = [m.text for m in provider.requests[-1].messages]
    assert all(any(p in text for text in sent) for p in PROMPTS)
    assert not (workspace / "notes.md").exists()  # the files stay as they are
    again = list(run_command(runtime, "/context restore rewind").lines)
    assert again == ["nothing to restore: no /rewind hides part of the conversation"]
    runtime.close()


async def test_rewind_code_only_keeps_the_conversation(workspace: Path) -> None:
    runtime = await _two_turns(workspace)
    before = len(runtime.agent.session.view())
    result = run_command(runtime, "/rewind 2 code")
    assert not result.session_changed
    assert (workspace / "config.toml").read_text() == "debug = false\n"
    assert len(runtime.agent.session.view()) == before
    assert run_command(runtime, "/rewind 9").error
    assert run_command(runtime, "/rewind 1 everything").error
    runtime.close()


async def test_an_outside_change_refuses_until_forced(workspace: Path) -> None:
    runtime = await _two_turns(workspace)
    (workspace / "config.toml").write_text("debug = maybe\n")
    refused = run_command(runtime, "/undo")
    assert refused.error
    assert refused.lines[0] == (
        f"/undo (the changes of prompt 2) refused: changed outside lull since: "
        f"{workspace.resolve() / 'config.toml'}; /undo force overwrites them"
    )
    assert [f.command for f in refused.follow_ups] == ["/undo force"]
    assert (workspace / "config.toml").read_text() == "debug = maybe\n"
    rewind = run_command(runtime, "/rewind 1 both")
    assert rewind.error and (workspace / "notes.md").exists()  # nothing touched
    assert len(runtime.agent.session.view()) > 2  # nor the conversation
    run_command(runtime, "/undo force")
    assert (workspace / "config.toml").read_text() == "debug = false\n"
    runtime.close()


async def test_checkpoints_survive_resume_and_show_in_context(workspace: Path) -> None:
    runtime = await _two_turns(workspace)
    session_id = runtime.agent.session.id
    context = run_command(runtime, "/context").lines
    assert any(line.startswith("checkpoints: 2 file change(s) to 2 file(s)") for line in context)
    runtime.close()
    resumed = build_runtime(RunOptions(workspace=workspace, demo=True, resume=session_id), env={})
    lines = run_command(resumed, "/undo").lines
    assert lines[1] == f"  restored {workspace.resolve() / 'config.toml'}"
    resumed.close()


async def test_a_fork_undoes_what_the_original_changed_and_the_original_keeps_it(
    workspace: Path,
) -> None:
    runtime = await _two_turns(workspace)
    original = runtime.agent.session.id
    runtime.close()
    options = RunOptions(workspace=workspace, demo=True, resume=original, fork_session=True)
    forked = build_runtime(options, env={})
    assert forked.agent.session.record.forked_from == original
    lines = run_command(forked, "/undo").lines
    assert lines[1] == f"  restored {workspace.resolve() / 'config.toml'}"
    assert (workspace / "config.toml").read_text() == "debug = false\n"
    forked.close()
    (workspace / "config.toml").write_text("debug = true\n")  # as the original left it
    resumed = build_runtime(RunOptions(workspace=workspace, demo=True, resume=original), env={})
    lines = run_command(resumed, "/undo").lines  # the fork's undo is the fork's own
    assert lines[0] == "/undo (the changes of prompt 2): 1 file(s):"
    assert (workspace / "config.toml").read_text() == "debug = false\n"
    resumed.close()


async def test_checkpoints_go_with_their_session(workspace: Path) -> None:
    runtime = await _two_turns(workspace)
    log = runtime.agent.tools.checkpoint_log
    assert log is not None and log.directory.is_dir()
    session_file = runtime.agent.session.path
    runtime.close()
    assert session_file is not None
    session_file.unlink()  # the session is deleted
    build_runtime(RunOptions(workspace=workspace, demo=True), env={}).close()
    assert not log.directory.exists()


UNDO_OR_REWIND = pytest.mark.parametrize("command", ["/undo", "/rewind 1 code"])


async def _edited_under_dir(workspace: Path, existed: bool) -> Runtime:
    """One prompt (yolo): lull writes dir/f.txt (which held "old" when ``existed``, else
    is new) and creates notes.md next to it."""
    (workspace / "dir").mkdir()
    if existed:
        (workspace / "dir" / "f.txt").write_text("old\n")
    runtime = build_runtime(
        RunOptions(workspace=workspace, demo=True, approval_mode="yolo"), env={}
    )
    provider = runtime.agent.provider
    assert isinstance(provider, ScriptedProvider)
    calls = (
        ScriptedCall("write_file", {"path": "dir/f.txt", "content": "lull\n"}),
        ScriptedCall("write_file", {"path": "notes.md", "content": "# notes\n"}),
    )
    provider.script(ScriptedReply(tool_calls=calls), ScriptedReply(text="written"))
    await run(runtime.agent, "write them")
    assert (workspace / "dir" / "f.txt").read_text() == "lull\n"
    return runtime


def _swap_dir_for_a_link(workspace: Path, outside: Path, content: str) -> Path:
    """``dir`` becomes a symlink to ``outside``, whose f.txt holds ``content``."""
    outside.mkdir()
    (outside / "f.txt").write_text(content)
    shutil.rmtree(workspace / "dir")
    (workspace / "dir").symlink_to(outside, target_is_directory=True)
    return outside / "f.txt"


def _escape_line(workspace: Path, target: Path) -> str:
    inside = workspace.resolve() / "dir" / "f.txt"
    return (
        f"  not restored: {inside} now leads to {target}, outside the workspace "
        f"{workspace.resolve()} (a symlink on the way); left as it is"
    )


@UNDO_OR_REWIND
async def test_a_created_file_whose_dir_now_leads_outside_is_not_deleted(
    workspace: Path, tmp_path: Path, command: str
) -> None:
    runtime = await _edited_under_dir(workspace, existed=False)
    try:
        target = _swap_dir_for_a_link(workspace, tmp_path / "outside", "lull\n")  # same bytes

        result = run_command(runtime, command)

        assert target.read_text() == "lull\n"  # the file outside is still there
        assert not (workspace / "notes.md").exists()  # the rest of the undo went ahead
        assert f"  deleted {workspace.resolve() / 'notes.md'}" in result.lines
        assert _escape_line(workspace, target) in result.lines
        assert result.lines[0].endswith(": 1 file(s):")  # notes.md
    finally:
        runtime.close()


@UNDO_OR_REWIND
@pytest.mark.parametrize("outside_content", ["lull\n", "the user's own data\n"])
async def test_a_changed_file_whose_dir_now_leads_outside_is_not_overwritten(
    workspace: Path, tmp_path: Path, command: str, outside_content: str
) -> None:
    runtime = await _edited_under_dir(workspace, existed=True)
    try:
        target = _swap_dir_for_a_link(workspace, tmp_path / "outside", outside_content)

        result = run_command(runtime, command)
        forced = run_command(runtime, f"{command} force")  # nothing left to force either

        assert target.read_text() == outside_content
        assert not (workspace / "notes.md").exists()
        assert _escape_line(workspace, target) in result.lines
        assert not any("changed outside lull" in line for line in result.lines)  # not asked
        assert not forced.error
        assert target.read_text() == outside_content
    finally:
        runtime.close()


async def test_a_file_itself_swapped_for_a_link_outside_is_named_and_kept(
    workspace: Path, tmp_path: Path
) -> None:
    runtime = await _edited_under_dir(workspace, existed=True)
    try:
        secret = tmp_path / "secret.txt"
        secret.write_text("lull\n")
        (workspace / "dir" / "f.txt").unlink()
        (workspace / "dir" / "f.txt").symlink_to(secret)

        result = run_command(runtime, "/undo force")

        assert secret.read_text() == "lull\n"
        inside = workspace.resolve() / "dir" / "f.txt"
        assert (
            f"  not restored: {inside} now leads to {secret}, outside the workspace "
            f"{workspace.resolve()} (a symlink on the way); left as it is"
        ) in result.lines
        assert (workspace / "dir" / "f.txt").is_symlink()
    finally:
        runtime.close()
