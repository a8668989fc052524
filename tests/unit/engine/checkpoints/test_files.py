"""The checkpoint store on real files: a round trip with a binary file, a created file and
a deleted one; a restore refused after an outside change (and forced); the log survives a
reload (a resumed session); pruning with the session; a fork's copy; names that are not
UTF-8."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from lull.engine.checkpoints.files import CheckpointStore, SessionCheckpoints, prune
from lull.engine.sessions.store import SessionStore
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from tests.support import AgentFactory, run

BINARY = bytes(range(256)) * 4


def change(
    log: SessionCheckpoints,
    call_id: str,
    path: Path,
    data: bytes | None,
    root: Path | None = None,
) -> None:
    """What a tool call does: checkpoint, change the file (None: delete it), report back."""
    change_id = log.capture(call_id, path, root)
    if data is None:
        path.unlink()
    else:
        path.write_bytes(data)
    log.finish(change_id)


def test_a_rewind_puts_back_binary_created_and_deleted_files(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    image, notes, old = work / "logo.png", work / "notes.md", work / "old.txt"
    image.write_bytes(BINARY)
    old.write_text("keep me\n")
    log = SessionCheckpoints(tmp_path / "store" / "s1")
    log.begin_turn(1, "m_1")
    change(log, "c1", image, b"\x00broken")
    change(log, "c2", notes, b"new file\n")
    log.begin_turn(2, "m_2")
    change(log, "c3", old, None)
    change(log, "c4", image, b"\x00broken twice")

    report = log.rewind(1)
    assert sorted(report.changed) == [
        (str(image), "restored"),
        (str(notes), "deleted"),
        (str(old), "recreated"),
    ]
    assert image.read_bytes() == BINARY and old.read_text() == "keep me\n"
    assert not notes.exists()
    assert log.changes() == [] and log.rewind(1).changed == []


def test_undo_reverts_only_the_last_turn_then_the_one_before(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("v0")
    log = SessionCheckpoints(tmp_path / "store")
    log.begin_turn(1, "m_1")
    change(log, "c1", path, b"v1")
    log.begin_turn(2, "m_2")
    change(log, "c2", path, b"v2")
    change(log, "c3", path, b"v3")
    assert log.undo_last().changed == [(str(path), "restored")]
    assert path.read_text() == "v1"
    log.undo_last()
    assert path.read_text() == "v0" and log.turns() == []


def test_an_outside_change_refuses_naming_the_file_unless_forced(tmp_path: Path) -> None:
    path, other = tmp_path / "a.txt", tmp_path / "b.txt"
    log = SessionCheckpoints(tmp_path / "store")
    log.begin_turn(1, "m_1")
    change(log, "c1", path, b"lull wrote this")
    change(log, "c2", other, b"and this")
    path.write_text("the user edited it")
    refused = log.undo_last()
    assert refused.refused and refused.conflicts == [str(path)]
    assert path.read_text() == "the user edited it" and other.exists()  # nothing touched
    forced = log.undo_last(force=True)
    assert sorted(forced.changed) == [(str(path), "deleted"), (str(other), "deleted")]
    assert not path.exists() and not other.exists()


def test_a_file_deleted_outside_lull_counts_as_an_outside_change(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("v0")
    log = SessionCheckpoints(tmp_path / "store")
    log.begin_turn(1, "m_1")
    change(log, "c1", path, b"v1")
    path.unlink()
    assert log.undo_last().conflicts == [str(path)]
    log.undo_last(force=True)
    assert path.read_text() == "v0"


def test_the_log_survives_a_reload_and_pruning_goes_with_the_session(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("v0")
    root = tmp_path / "store"
    log = CheckpointStore(root).session("s1")
    log.begin_turn(1, "m_1")
    change(log, "c1", path, b"v1")
    again = CheckpointStore(root).session("s1")  # a resumed session, a new lull process
    assert [c.call_id for c in again.changes()] == ["c1"] and again.turn == 1
    again.undo_last()
    assert path.read_text() == "v0"
    assert CheckpointStore(root).session("s1").changes() == []  # the undo is kept too
    CheckpointStore(root).session("s2").capture("c9", path)
    assert prune(root, ["s2"]) == ["s1"]
    assert sorted(os.listdir(root)) == ["s2"]


def test_a_name_that_is_not_utf8_survives(tmp_path: Path) -> None:
    path = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.txt"))
    path.write_bytes(b"v0")
    root = tmp_path / "store"
    log = CheckpointStore(root).session("s1")
    log.begin_turn(1, "m_1")
    change(log, "c1", path, b"v1")
    reloaded = CheckpointStore(root).session("s1")
    assert reloaded.undo_last().changed == [(str(path), "restored")]
    assert path.read_bytes() == b"v0"


def test_the_store_is_outside_the_workspace_and_content_addressed(tmp_path: Path) -> None:
    work, root = tmp_path / "work", tmp_path / "data" / "checkpoints"
    work.mkdir()
    one, two = work / "one.txt", work / "two.txt"
    one.write_text("same")
    two.write_text("same")
    log = CheckpointStore(root).session("s1")
    change(log, "c1", one, b"x")
    change(log, "c2", two, b"y")
    assert sorted(os.listdir(work)) == ["one.txt", "two.txt"]  # nothing added to the workspace
    assert len(os.listdir(root / "s1" / "objects")) == 1  # one copy of "same"
    assert log.size() == (2, 4)


async def test_a_sub_agents_edits_belong_to_the_parents_turn(
    make_agent: AgentFactory, provider: ScriptedProvider, store: SessionStore, workspace: Path
) -> None:
    from lull.engine.loop.config import AgentConfig
    from lull.engine.subagents.task import AgentProfile, SubagentSetup, TaskTool

    writer = AgentProfile("writer", "writes files", tools=("write_file",))
    arguments = {"description": "write", "prompt": "write it", "subagent_type": "writer"}
    task = ScriptedCall("task", arguments)
    provider.script(
        ScriptedReply(tool_calls=[task]),
        ScriptedReply(tool_calls=[ScriptedCall("write_file", {"path": "a.txt", "content": "x"})]),
        ScriptedReply(text="FINDINGS: wrote a.txt"),
        ScriptedReply(text="Done."),
    )
    agent = make_agent(mode="yolo")
    agent.tools.checkpoints = CheckpointStore(workspace.parent / "checkpoints")
    setup = SubagentSetup(store, lambda model: provider, AgentConfig(system="p"), max_turns=5)
    tool = TaskTool(setup, lambda: agent.tools, lambda: agent.session, [writer])
    agent.tools.registry.add(tool)
    await run(agent, "delegate")
    assert (workspace / "a.txt").read_text() == "x"
    log = agent.tools.checkpoints.session(agent.session.id)
    assert [(c.turn, Path(c.path).name) for c in log.changes()] == [(1, "a.txt")]
    log.undo_last()
    assert not (workspace / "a.txt").exists()


async def test_a_checkpoint_that_cannot_be_written_is_said_and_the_edit_runs(
    make_agent: AgentFactory, provider: ScriptedProvider, workspace: Path, tmp_path: Path
) -> None:
    from lull.model.events import Notice

    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the store should be")
    agent = make_agent(mode="yolo")
    agent.tools.checkpoints = CheckpointStore(blocker)
    call = ScriptedCall("write_file", {"path": "a.txt", "content": "x"})
    provider.script(ScriptedReply(tool_calls=[call]), ScriptedReply(text="ok"))
    events = await run(agent, "write")
    assert (workspace / "a.txt").read_text() == "x"
    warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert any(w.startswith("could not checkpoint ") and "/undo cannot" in w for w in warnings)
    log = agent.tools.checkpoint_log
    assert log is not None and log.changes() == []


def test_a_fork_gets_a_copy_of_the_checkpoints_apart_from_the_original(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(BINARY)
    root = tmp_path / "store"
    original = CheckpointStore(root).session("s1")
    original.begin_turn(1, "m_1")
    change(original, "c1", path, b"v1")
    (root / "s1" / "objects" / "half-written.tmp").write_bytes(b"x")

    store = CheckpointStore(root)
    store.fork("s1", "s2")
    forked = store.session("s2")
    assert forked.changes() == original.changes()
    assert not (root / "s2" / "objects" / "half-written.tmp").exists()
    forked.begin_turn(2, "m_2")
    change(forked, "c2", path, b"v2")  # only the fork's log and store hear of it
    assert forked.undo_last().changed == [(str(path), "restored")]
    assert forked.undo_last().changed == [(str(path), "restored")]
    assert path.read_bytes() == BINARY
    again = SessionCheckpoints(root / "s1")
    assert again.changes() == original.changes() and len(again.changes()) == 1
    kept = {hashlib.sha256(BINARY).hexdigest()}
    assert set(os.listdir(root / "s1" / "objects")) == {*kept, "half-written.tmp"}
    assert set(os.listdir(root / "s2" / "objects")) == {*kept, hashlib.sha256(b"v1").hexdigest()}

    store.fork("s1", "s2")  # a fork that has checkpoints keeps its own
    assert len(SessionCheckpoints(root / "s2").changes()) == 0  # both turns undone
    store.fork("no-such-session", "s3")
    assert not (root / "s3").exists()


def test_a_large_file_is_kept_and_put_back_without_holding_it_in_memory(tmp_path: Path) -> None:
    import tracemalloc

    from lull.engine.checkpoints.files import CHUNK_BYTES

    path = tmp_path / "data.bin"
    block = bytes(range(256)) * 4096  # 1 MiB
    with path.open("wb") as out:
        for n in range(12):
            out.write(bytes([n]) + block[1:])
    original = hashlib.sha256(path.read_bytes()).hexdigest()
    log = SessionCheckpoints(tmp_path / "store")
    log.begin_turn(1, "m_1")
    tracemalloc.start()
    try:
        change(log, "c1", path, b"small now")
        assert log.undo_last().changed == [(str(path), "restored")]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == original
    assert peak < 4 * CHUNK_BYTES < path.stat().st_size  # chunks, never the whole 12 MiB


def test_a_path_that_now_leads_outside_is_left_alone_and_the_rest_restored(
    tmp_path: Path,
) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "dir").mkdir(parents=True)
    kept, made, other = work / "dir" / "kept.txt", work / "dir" / "made.txt", work / "other.txt"
    kept.write_text("before")
    other.write_text("other before")
    log = CheckpointStore(tmp_path / "store").session("s1")
    log.begin_turn(1, "m_1")
    for call_id, path in (("c1", kept), ("c2", made), ("c3", other)):
        change(log, call_id, path, b"lull", root=work)
    outside.mkdir()
    (outside / "kept.txt").write_text("lull")  # the bytes lull left: no outside change to ask
    (outside / "made.txt").write_text("lull")
    shutil.rmtree(work / "dir")
    (work / "dir").symlink_to(outside, target_is_directory=True)

    report = log.undo_last(force=True)

    assert report.changed == [(str(other), "restored")]
    assert other.read_text() == "other before"
    assert (outside / "kept.txt").read_text() == "lull"  # not overwritten
    assert (outside / "made.txt").read_text() == "lull"  # not deleted
    assert report.escaped == [
        (
            str(path),
            f"now leads to {outside / path.name}, outside the workspace {work} (a "
            "symlink on the way)",
        )
        for path in (kept, made)
    ]
    assert log.turns() == []  # done with: a later /undo goes on to the turn before


def test_a_change_recorded_without_a_root_is_anchored_at_slash(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    path = tmp_path / "dir" / "a.txt"
    log = SessionCheckpoints(tmp_path / "store")  # a log written before roots were kept
    log.begin_turn(1, "m_1")
    change(log, "c1", path, b"lull")
    shutil.rmtree(tmp_path / "dir")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.txt").write_text("lull")
    (tmp_path / "dir").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    report = log.undo_last()
    assert report.changed == []
    [(named, why)] = report.escaped
    assert named == str(path) and why.startswith(f"now leads to {tmp_path / 'elsewhere'}/a.txt")
    assert (tmp_path / "elsewhere" / "a.txt").read_text() == "lull"


def test_the_root_a_change_was_checked_under_is_kept_in_the_log(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "dir").mkdir(parents=True)
    path = work / "dir" / "a.txt"
    root = tmp_path / "store"
    log = CheckpointStore(root).session("s1")
    log.begin_turn(1, "m_1")
    change_id = log.capture("c1", path, work)
    path.write_text("lull")
    log.finish(change_id)
    (work / "dir" / "a.txt").unlink()
    (work / "dir").rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_text("lull")
    (work / "dir").symlink_to(elsewhere, target_is_directory=True)

    reloaded = CheckpointStore(root).session("s1")  # a resumed session
    [kept] = reloaded.changes()
    assert kept.root == str(work)
    report = reloaded.undo_last()
    assert report.changed == [] and report.conflicts == []
    assert report.escaped == [
        (
            str(path),
            f"now leads to {elsewhere / 'a.txt'}, outside the workspace {work} "
            "(a symlink on the way)",
        )
    ]
    assert (elsewhere / "a.txt").read_text() == "lull"
